import type { AvroRecord } from '../core/event/event-record.ts'
import type { EachBatchPayload, KafkaMessage, Producer } from '../core/kafka.ts'
import type { Logger } from '../core/logger.ts'
import type { BackoffSettings } from './backoff.ts'
import { messageRows } from './batch-rows.ts'
import type { BatchWriter } from './batch-writer.ts'
import { CommitTracker } from './commit-tracker.ts'
import type { Poison } from './dead-letter.ts'
import { publishDeadLetters } from './dead-letter-publish.ts'
import { type DecodeDeps, DependencyError, decodeMessage } from './decode-message.ts'
import { messagesDigest } from './insert-token.ts'
import type { Dependency, ProgressWatch } from './progress-watch.ts'
import { retryUntil, WorkerStoppingError } from './retry-until.ts'
import type { WorkerMetrics } from './worker-metrics.ts'

// One partition batch, start to commit: decode (registry) -> rows (the transform) -> ClickHouse
// (the batch writer, which retries until acknowledged) -> poison to the DLQ -> commit the offset
// after the last message. Nothing is committed before ClickHouse and the DLQ acknowledged, so a
// crash anywhere means the batch is read again, and the deduplication makes that harmless.
export interface BatchProcessorDeps {
  decoder: DecodeDeps
  /** Told of batches, commits and failing dependencies: what /healthz and worker_stalled read. */
  progress: ProgressWatch
  writer: BatchWriter
  producer: Producer
  deadLetterTopic: string
  /** The DLQ topic's max.message.bytes, asked when a dead letter is too large for it. */
  deadLetterMaxBytes: () => Promise<number | undefined>
  metrics: WorkerMetrics
  logger: Logger
  signal: AbortSignal
  backoff: BackoffSettings
  /** Commits `offset` (the next to read) once the batch before it is stored. */
  commit: (topic: string, partition: number, offset: string) => Promise<void>
  /** Kafka accepted the commit of `offset`: the messages before it are this worker's, once (domain counts). */
  committed: (topic: string, partition: number, offset: string) => void
  /** A rebalance left this worker these partitions (topic/partition). */
  assigned: (kept: ReadonlySet<string>) => void
  /** Reads a partition again from an offset (after a batch failed). */
  seek: (topic: string, partition: number, offset: string) => void
  /** Batches handed over and not yet committed before eachBatch waits (bounds memory). */
  maxPendingBatches: number
}

export function createBatchProcessor(deps: BatchProcessorDeps) {
  const { metrics, logger, progress } = deps
  const failing = new Set<Dependency>()
  const setFailing = (name: Dependency, now: boolean) => {
    if (failing.has(name) === now) return
    if (now) failing.add(name)
    else failing.delete(name)
    progress.dependencyFailing(name, now)
    if (name === 'schema_registry') metrics.schemaRegistryFailing.set(now ? 1 : 0)
    if (!now) logger.info({ dependency: name }, `${name} answers again: resuming`)
  }
  const retry = async <T>(
    operation: () => Promise<T>,
    name: Exclude<Dependency, 'clickhouse'>,
    keepAlive: () => Promise<void>,
    giveUp: (error: unknown) => boolean = (error) =>
      name === 'schema_registry' && !(error instanceof DependencyError),
  ): Promise<T> => {
    const result = await retryUntil(operation, {
      signal: deps.signal,
      backoff: deps.backoff,
      keepAlive,
      giveUp,
      onFailure: (error, attempt, delayMs) => {
        metrics.retries.inc({ operation: name })
        setFailing(name, true)
        logger.warn(
          { attempt, retryInMs: delayMs, error: (error as Error).message },
          `${name} failed: retrying, its partition waits and nothing is committed`,
        )
      },
    })
    setFailing(name, false)
    return result
  }

  async function sendDeadLetters(poison: Poison[], keepAlive: () => Promise<void>): Promise<void> {
    await publishDeadLetters(poison, new Date(), {
      send: async (records) => {
        await deps.producer.send({ topic: deps.deadLetterTopic, acks: -1, messages: records })
      },
      retry: (operation, giveUp) => retry(operation, 'dead_letter_publish', keepAlive, giveUp),
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

  async function eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, heartbeat } = payload
    if (batch.isEmpty()) return
    const started = performance.now()
    const { topic, partition } = batch
    const key = `${topic}/${partition}`
    const firstOffset = batch.firstOffset()!
    const lastOffset = batch.lastOffset()
    metrics.batchesInFlight.inc()
    progress.batchStarted()
    let handedOver = false
    try {
      const decoded: Array<{ message: KafkaMessage; record: AvroRecord }> = []
      const poison: Poison[] = []
      for (const message of batch.messages) {
        const result = await retry(() => decodeMessage(deps.decoder, message), 'schema_registry', heartbeat)
        if (result.ok) decoded.push({ message, record: result.record })
        else poison.push({ message, topic, partition, reason: result.reason, error: result.error })
      }
      const rows = messageRows(topic, partition, decoded)
      poison.push(...rows.poison)
      while (pending.size >= deps.maxPendingBatches) await Promise.race(pending)
      const digest = messagesDigest(rows.entries.map((entry) => entry.message))
      const range = { topic, partition, firstOffset, lastOffset, digest }
      const written =
        rows.entries.length > 0 ? deps.writer.write(range, rows.entries, heartbeat) : Promise.resolve([])
      written.catch(() => {}) // observed below, in order

      const ticket = tracker.handedOver(key, firstOffset, lastOffset)
      const previous = chains.get(key) ?? Promise.resolve()
      const done: Promise<void> = previous
        .then(async () => {
          const rejected = await written
          for (const { entry, error } of rejected)
            poison.push({ message: entry.message, topic, partition, reason: 'rejected_by_clickhouse', error })
          const now = Date.now()
          for (const entry of rows.entries) {
            const receivedAt = entry.rows.conversations[0]?.received_at
            if (typeof receivedAt === 'number') metrics.eventAge.observe((now - receivedAt) / 1000)
          }
          if (poison.length > 0) await sendDeadLetters(poison, heartbeat)
          const decision = tracker.done(ticket)
          if (decision.action === 'none' && decision.why !== 'waiting_for_older') return // read again
          if (decision.action === 'commit') {
            try {
              await deps.commit(topic, partition, decision.offset)
            } catch (error) {
              const rewind = tracker.rewind(key, decision.from)
              if (rewind.action === 'seek') seekBack(topic, partition, rewind.offset, error)
              return
            }
            deps.committed(topic, partition, decision.offset)
            metrics.lastCommit.set(Date.now() / 1000)
            progress.committed()
            metrics.consumerLag.set(
              { topic, partition: String(partition) },
              Math.max(0, Number(BigInt(batch.highWatermark) - BigInt(decision.offset))),
            )
          }
          metrics.messagesConsumed.inc({ outcome: 'dead_lettered' }, poison.length)
          metrics.messagesConsumed.inc({ outcome: 'inserted' }, batch.messages.length - poison.length)
          metrics.batchDuration.observe((performance.now() - started) / 1000)
        })
        .catch((error) => {
          const decision = tracker.failed(ticket)
          if (decision.action === 'seek') seekBack(topic, partition, decision.offset, error)
        })
        .finally(() => {
          pending.delete(done)
          metrics.batchesInFlight.dec()
          progress.batchFinished()
        })
      chains.set(key, done)
      pending.add(done)
      handedOver = true
      payload.resolveOffset(lastOffset)
    } catch (error) {
      // Stopping mid-batch: commit nothing; the next owner of the partition reads it again.
      if (error instanceof WorkerStoppingError) return
      throw error
    } finally {
      if (!handedOver) {
        metrics.batchesInFlight.dec()
        progress.batchFinished()
      }
    }
  }

  return {
    eachBatch,
    /** A rebalance assigned these partitions: batches of any other one commit nothing any more. */
    assigned(assignment: Record<string, number[]>): void {
      const kept = new Set(
        Object.entries(assignment).flatMap(([topic, partitions]) =>
          partitions.map((partition) => `${topic}/${partition}`),
        ),
      )
      tracker.revoked(tracker.partitionKeys().filter((key) => !kept.has(key)))
      deps.assigned(kept)
    },
    /** Resolves once every batch handed over is committed (or given up). */
    async drain(): Promise<void> {
      while (pending.size > 0) await Promise.allSettled([...pending])
    },
  }
}
