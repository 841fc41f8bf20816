import type { AssignmentChange } from '../../../core/kafka/kafka-consumer.ts'
import type { BatchProducer } from '../../../core/kafka/kafka-producer.ts'
import type { PartitionBatch } from '../../../core/kafka/partition-batches.ts'
import type { BackoffSettings } from '../../../core/runtime/backoff.ts'
import type { Logger } from '../../../core/runtime/logger.ts'
import { retryUntil, WorkerStoppingError } from '../../../core/runtime/retry-until.ts'
import type { Dependency, ProgressWatch } from '../observe/progress-watch.ts'
import type { WorkerMetrics } from '../observe/worker-metrics.ts'
import type { TurnTakingSettings } from '../transform/turn-taking.ts'
import type { BatchWriter, Rejected } from '../write/batch-writer.ts'
import { messagesDigest } from '../write/insert-token.ts'
import { BatchSlots, batchBytes } from './batch-slots.ts'
import { deadLetters, outcomeCounts, received, toWrite, transformed, written } from './batch-steps.ts'
import { type BatchTicket, CommitTracker } from './commit-tracker.ts'
import { DependencyError } from './consume-errors.ts'
import { isTooLarge, publishDeadLetters } from './dead-letter-publish.ts'
import { type DecodeDeps, decodeMessage } from './decode-message.ts'
import type { Decoded, Poisoned, Stored, Transformed } from './message-outcome.ts'

// One partition batch, start to commit, as explicit steps over one outcome per message
// (message-outcome.ts; the pure part of each step is in batch-steps.ts, the I/O here):
//   decode (registry) -> rows (the transform) -> write (the batch writer, which retries until
//   ClickHouse acknowledged) -> dead-letter (poison to the DLQ) -> commit the offset after the last
//   message.
// Nothing is committed before ClickHouse and the DLQ acknowledged, so a crash anywhere means the
// batch is read again, and the deduplication makes that harmless.
export interface BatchProcessorDeps {
  decoder: DecodeDeps
  /** Told of batches, commits and failing dependencies: what /healthz and worker_stalled read. */
  progress: ProgressWatch
  writer: BatchWriter
  /** The dead-letter topic's producer (acks=all). */
  producer: Pick<BatchProducer, 'sendBatch'>
  deadLetterTopic: string
  /** The DLQ topic's max.message.bytes, asked when a dead letter is too large for it. */
  deadLetterMaxBytes: () => Promise<number | undefined>
  metrics: WorkerMetrics
  logger: Logger
  signal: AbortSignal
  backoff: BackoffSettings
  /** The dead-air threshold of the turn-taking figures (DEAD_AIR_SECONDS). */
  turnTaking: TurnTakingSettings
  /** Commits `offset` (the next to read) once the batch before it is stored. */
  commit: (topic: string, partition: number, offset: string) => Promise<void>
  /** Kafka accepted the commit of `offset`: the messages before it are this worker's, once (domain counts). */
  committed: (topic: string, partition: number, offset: string) => void
  /** A partition's reading starts at `offset`, its committed offset (first assigned, or after a break). */
  readingFrom: (topic: string, partition: number, offset: string) => void
  /** A rebalance left this worker these partitions (topic/partition), kept or read afresh. */
  assigned: (assigned: ReadonlySet<string>) => void
  /**
   * Whether the group still gives the batch's partition to this worker, without a break since it was
   * fetched. A batch that lost its partition while it was decoded is not handed over: the new owner
   * reads it from the last commit, and a commit of it could move that commit back.
   */
  owns: (batch: PartitionBatch) => boolean
  /** Reads a partition again from an offset (after a batch failed). */
  seek: (topic: string, partition: number, offset: string) => void
  /** Bytes of batches decoded and not yet committed before eachBatch waits, undecoded (bounds memory; batch-slots.ts). */
  maxPendingBytes: number
}

/** How the batch waits for one dependency (not ClickHouse: the batch writer retries that itself). */
interface RetryPolicy {
  dependency: Exclude<Dependency, 'clickhouse'>
  /** Errors no retry can help: back to the step at once. */
  giveUp: (error: unknown) => boolean
}

export function createBatchProcessor(deps: BatchProcessorDeps) {
  const { metrics, logger, progress } = deps

  /** Retries an operation on one dependency until it answers; its partition waits meanwhile. */
  function retrying(policy: RetryPolicy) {
    const { dependency } = policy
    const setFailing = (now: boolean) => {
      if (progress.dependencyFailing(dependency, now) && !now)
        logger.info({ dependency }, `${dependency} answers again: resuming`)
    }
    return async <T>(
      operation: () => Promise<T>,
      keepAlive: () => Promise<void>,
      giveUp: (error: unknown) => boolean = policy.giveUp,
    ): Promise<T> => {
      const result = await retryUntil(operation, {
        signal: deps.signal,
        backoff: deps.backoff,
        keepAlive,
        giveUp,
        onFailure: (error, attempt, delayMs) => {
          metrics.retries.inc({ operation: dependency })
          setFailing(true)
          logger.warn(
            { attempt, retryInMs: delayMs, error: (error as Error).message },
            `${dependency} failed: retrying, its partition waits and nothing is committed`,
          )
        },
      })
      setFailing(false)
      return result
    }
  }
  const registry = retrying({
    dependency: 'schema_registry',
    // A DependencyError is the registry not answering; anything else decodeMessage throws is a bug.
    giveUp: (error) => !(error instanceof DependencyError),
  })
  const deadLetterTopic = retrying({ dependency: 'dead_letter_publish', giveUp: isTooLarge })
  // The consumer heartbeats on a timer of its own (kafka-consumer.ts): waiting needs no keep-alive.
  const keepAlive = async () => {}

  // Step 1, decode: one message after the other; a registry that does not answer is waited for.
  async function decode(batch: PartitionBatch): Promise<Array<Decoded | Poisoned>> {
    const outcomes: Array<Decoded | Poisoned> = []
    for (const message of received(batch.topic, batch.partition, batch.messages))
      outcomes.push(await registry(() => decodeMessage(deps.decoder, message), keepAlive))
    return outcomes
  }

  // Step 3, write: hands the rows over to the batch writer and returns at once; the promise
  // resolves with the outcomes once ClickHouse acknowledged (or refused some messages' data).
  function write(
    outcomes: Array<Transformed | Poisoned>,
    range: { firstOffset: string; lastOffset: string },
    batch: PartitionBatch,
  ): Promise<Array<Stored | Poisoned>> {
    const { topic, partition } = batch
    const entries = toWrite(outcomes)
    const digest = messagesDigest(entries.map((entry) => entry.message))
    const acknowledged: Promise<Rejected[]> =
      entries.length > 0
        ? deps.writer.write(
            { topic, partition, ...range, digest },
            entries,
            keepAlive,
            BigInt(batch.offsetLag) > 0n,
          )
        : Promise.resolve([])
    const stored = acknowledged.then((rejected) => written(outcomes, rejected))
    stored.catch(() => {}) // observed by the commit chain, in order
    return stored
  }

  function observeEventAge(outcomes: ReadonlyArray<Stored | Poisoned>): void {
    const now = Date.now()
    for (const outcome of outcomes) {
      if (outcome.kind !== 'stored') continue
      const receivedAt = outcome.entry.rows.conversations[0]?.received_at
      if (typeof receivedAt === 'number') metrics.eventAge.observe((now - receivedAt) / 1000)
    }
  }

  // Step 4, dead-letter: the batch's poison to the DLQ, acknowledged, before the commit.
  async function deadLetter(outcomes: ReadonlyArray<Stored | Poisoned>) {
    const poison = deadLetters(outcomes)
    if (poison.length === 0) return
    await publishDeadLetters(poison, new Date(), {
      send: async (records) => {
        await deps.producer.sendBatch([{ topic: deps.deadLetterTopic, messages: records }])
      },
      retry: (operation, giveUp) => deadLetterTopic(operation, keepAlive, giveUp),
      maxMessageBytes: deps.deadLetterMaxBytes,
      onOversized: (item, stored, error) => {
        metrics.deadLetterOversized.inc({ stored })
        const where = { topic: item.topic, partition: item.partition, offset: item.message.offset }
        if (stored === 'none')
          logger.error(
            { ...where, reason: item.reason, error: item.error, valueBytes: item.message.value?.length ?? 0 },
            `${error}, even reduced: not dead-lettered; the original stays in its topic at this offset`,
          )
        else logger.warn({ ...where, stored }, `${error}: dead-lettered ${stored}`)
      },
    })
    for (const item of poison) {
      metrics.deadLettered.inc({ reason: item.reason })
      logger.warn(
        { partition: item.partition, offset: item.message.offset, reason: item.reason, error: item.error },
        'message sent to the dead-letter topic',
      )
    }
  }

  // Kafka does not fetch again until eachBatch returns, so eachBatch hands the rows to the writer
  // and returns; the commit follows once ClickHouse (and the DLQ) acknowledged. Which offset may
  // be committed, and where a failed batch seeks its partition back to, is the commit tracker's
  // decision (commit-tracker.ts); the chain per partition keeps the commits in offset order.
  const pending = new Set<Promise<void>>()
  const chains = new Map<string, Promise<void>>()
  const tracker = new CommitTracker()
  const slots = new BatchSlots(deps.maxPendingBytes)

  function seekBack(topic: string, partition: number, offset: string, error: unknown): void {
    // Stopping: nothing more is committed; the next owner of the partition reads it again.
    if (error instanceof WorkerStoppingError || deps.signal.aborted) return
    logger.error(
      { topic, partition, offset, error: (error as Error).message },
      'batch failed after it was handed over: its partition is read again from this offset',
    )
    try {
      deps.seek(topic, partition, offset)
    } catch (seekError) {
      logger.warn(
        { error: (seekError as Error).message },
        'could not seek; the partition is read again after a restart',
      )
    }
  }

  // Step 5, commit: the batch is stored and dead-lettered; commit what the tracker allows.
  async function commit(
    ticket: BatchTicket,
    outcomes: ReadonlyArray<Stored | Poisoned>,
    batch: PartitionBatch,
    started: number,
  ): Promise<void> {
    const { topic, partition, highWatermark } = batch
    const decision = tracker.done(ticket)
    switch (decision.action) {
      case 'seek':
        return // done() never seeks; failed() does
      case 'none':
        // Dropped or stale: the partition is read again from an older offset; this batch counts nothing.
        if (decision.why !== 'waiting_for_older') return
        break // an older batch of the partition commits it
      case 'commit':
        try {
          await deps.commit(topic, partition, decision.offset)
        } catch (error) {
          const rewind = tracker.commitFailed(ticket, decision.from)
          if (rewind.action === 'seek') seekBack(topic, partition, rewind.offset, error)
          else
            logger.info(
              { topic, partition, offset: decision.offset, error: (error as Error).message },
              'commit refused after a rebalance that did not keep its partition: its new reading goes on',
            )
          return
        }
        deps.committed(topic, partition, decision.offset)
        metrics.lastCommit.set(Date.now() / 1000)
        progress.committed()
        metrics.consumerLag.set(
          { topic, partition: String(partition) },
          Math.max(0, Number(BigInt(highWatermark) - BigInt(decision.offset))),
        )
    }
    const counts = outcomeCounts(outcomes)
    metrics.messagesConsumed.inc({ outcome: 'dead_lettered' }, counts.deadLettered)
    metrics.messagesConsumed.inc({ outcome: 'inserted' }, counts.stored)
    metrics.batchDuration.observe((performance.now() - started) / 1000)
  }

  async function eachBatch(batch: PartitionBatch): Promise<void> {
    if (batch.messages.length === 0) return
    const started = performance.now()
    const { topic, partition } = batch
    const key = `${topic}/${partition}`
    const range = { firstOffset: batch.firstOffset, lastOffset: batch.lastOffset }
    metrics.batchesInFlight.inc()
    progress.batchStarted()
    let handedOver = false
    // Room first, then decode: a batch waiting for room holds its bytes only, not its events and rows.
    const bytes = batchBytes(batch.messages)
    // No room: nothing more joins the write in waiting until one ends, so it need not wait for more.
    if (slots.mustWait(bytes)) deps.writer.full()
    const release = await slots.acquire(bytes)
    try {
      const decoded = await decode(batch) // step 1
      if (!deps.owns(batch)) return // a rebalance took the partition meanwhile; nothing is written
      const stored = write(transformed(decoded, deps.turnTaking), range, batch) // steps 2 and 3, the write in the background

      if (!tracker.tracking(key)) deps.readingFrom(topic, partition, range.firstOffset)
      const ticket = tracker.handedOver(key, range.firstOffset, range.lastOffset)
      const previous = chains.get(key) ?? Promise.resolve()
      const done: Promise<void> = previous
        .then(async () => {
          const outcomes = await stored
          observeEventAge(outcomes)
          await deadLetter(outcomes) // step 4
          await commit(ticket, outcomes, batch, started) // step 5
        })
        .catch((error) => {
          const decision = tracker.failed(ticket)
          if (decision.action === 'seek') seekBack(topic, partition, decision.offset, error)
        })
        .finally(() => {
          pending.delete(done)
          release()
          metrics.batchesInFlight.dec()
          progress.batchFinished()
        })
      chains.set(key, done)
      pending.add(done)
      handedOver = true
    } catch (error) {
      // Stopping mid-batch: commit nothing; the next owner of the partition reads it again.
      if (error instanceof WorkerStoppingError) return
      throw error
    } finally {
      if (!handedOver) {
        release()
        metrics.batchesInFlight.dec()
        progress.batchFinished()
      }
    }
  }

  return {
    eachBatch,
    /**
     * A rebalance: batches of a partition not kept commit nothing any more, even of one assigned
     * again (it is read again from its committed offset, in batches tracked afresh).
     */
    assigned({ assigned, kept }: AssignmentChange): void {
      tracker.revoked(tracker.partitionKeys().filter((key) => !kept.has(key)))
      deps.assigned(assigned)
    },
    /** Resolves once every batch handed over is committed (or given up). */
    async drain(): Promise<void> {
      while (pending.size > 0) await Promise.allSettled([...pending])
    },
  }
}
