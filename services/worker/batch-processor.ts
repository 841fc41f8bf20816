import type { AvroRecord } from '../core/event/event-record.ts'
import type { EachBatchPayload, KafkaMessage, Producer } from '../core/kafka.ts'
import type { Logger } from '../core/logger.ts'
import type { BackoffSettings } from './backoff.ts'
import { messageRows } from './batch-rows.ts'
import type { BatchWriter } from './batch-writer.ts'
import { deadLetterMessage, type Poison } from './dead-letter.ts'
import { DependencyError, decodeMessage } from './decode-message.ts'
import { messagesDigest } from './insert-token.ts'
import { retryUntil, WorkerStoppingError } from './retry-until.ts'
import type { WorkerMetrics } from './worker-metrics.ts'

// One partition batch, start to commit: decode (registry) -> rows (the transform) -> ClickHouse
// (the batch writer, which retries until acknowledged) -> poison to the DLQ -> commit the offset
// after the last message. Nothing is committed before ClickHouse and the DLQ acknowledged, so a
// crash anywhere means the batch is read again, and the deduplication makes that harmless.
export interface BatchProcessorDeps {
  decode: (value: Buffer) => Promise<AvroRecord>
  writer: BatchWriter
  producer: Producer
  deadLetterTopic: string
  metrics: WorkerMetrics
  logger: Logger
  signal: AbortSignal
  backoff: BackoffSettings
  /** Commits `offset` (the next to read) once the batch before it is stored. */
  commit: (topic: string, partition: number, offset: string) => Promise<void>
  /** Reads a partition again from an offset (after a batch failed). */
  seek: (topic: string, partition: number, offset: string) => void
  /** Batches handed over and not yet committed before eachBatch waits (bounds memory). */
  maxPendingBatches: number
}

export function createBatchProcessor(deps: BatchProcessorDeps) {
  const { metrics, logger } = deps
  const retry = <T>(operation: () => Promise<T>, name: string, keepAlive: () => Promise<void>) =>
    retryUntil(operation, {
      signal: deps.signal,
      backoff: deps.backoff,
      keepAlive,
      giveUp: (error) => name === 'schema_registry' && !(error instanceof DependencyError),
      onFailure: (error, attempt, delayMs) => {
        metrics.retries.inc({ operation: name })
        logger.warn(
          { attempt, retryInMs: delayMs, error: (error as Error).message },
          `${name} failed: retrying`,
        )
      },
    })

  async function sendDeadLetters(poison: Poison[], keepAlive: () => Promise<void>): Promise<void> {
    const failedAt = new Date()
    await retry(
      () =>
        deps.producer.send({
          topic: deps.deadLetterTopic,
          acks: -1,
          messages: poison.map((item) => deadLetterMessage(item, failedAt)),
        }),
      'dead_letter_publish',
      keepAlive,
    )
    for (const item of poison) {
      metrics.deadLettered.inc({ reason: item.reason })
      logger.warn(
        { partition: item.partition, offset: item.message.offset, reason: item.reason, error: item.error },
        'message sent to the dead-letter topic',
      )
    }
  }

  // Kafka does not fetch again until eachBatch returns, so eachBatch hands the rows to the writer
  // and returns; the commit follows once ClickHouse (and the DLQ) acknowledged, in offset order
  // per partition. A batch that fails there moves its partition back to its first offset
  // (seek), and the commits of the batches behind it in that partition are dropped.
  const pending = new Set<Promise<void>>()
  const chains = new Map<string, Promise<void>>()
  const epochs = new Map<string, number>()

  async function eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, heartbeat } = payload
    if (batch.isEmpty()) return
    const started = performance.now()
    const { topic, partition } = batch
    const key = `${topic}/${partition}`
    const epoch = epochs.get(key) ?? 0
    const firstOffset = batch.firstOffset()!
    const lastOffset = batch.lastOffset()
    metrics.batchesInFlight.inc()
    let handedOver = false
    try {
      const decoded: Array<{ message: KafkaMessage; record: AvroRecord }> = []
      const poison: Poison[] = []
      for (const message of batch.messages) {
        const result = await retry(() => decodeMessage(deps.decode, message), 'schema_registry', heartbeat)
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
          if ((epochs.get(key) ?? 0) !== epoch) return // an earlier batch of this partition failed
          await deps.commit(topic, partition, (BigInt(lastOffset) + 1n).toString())
          metrics.lastCommit.set(Date.now() / 1000)
          metrics.consumerLag.set(
            { topic, partition: String(partition) },
            Math.max(0, Number(BigInt(batch.highWatermark) - BigInt(lastOffset) - 1n)),
          )
          metrics.messagesConsumed.inc({ outcome: 'dead_lettered' }, poison.length)
          metrics.messagesConsumed.inc({ outcome: 'inserted' }, batch.messages.length - poison.length)
          metrics.batchDuration.observe((performance.now() - started) / 1000)
        })
        .catch((error) => {
          if ((epochs.get(key) ?? 0) !== epoch) return
          epochs.set(key, epoch + 1)
          // Stopping: nothing more is committed; the next owner of the partition reads it again.
          if (error instanceof WorkerStoppingError || deps.signal.aborted) return
          logger.error(
            { topic, partition, offset: firstOffset, error: (error as Error).message },
            'batch failed after it was handed over: its partition is read again from this offset',
          )
          try {
            deps.seek(topic, partition, firstOffset)
          } catch (seekError) {
            logger.warn(
              { error: (seekError as Error).message },
              'could not seek; the partition is read again after a restart',
            )
          }
        })
        .finally(() => {
          pending.delete(done)
          metrics.batchesInFlight.dec()
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
      if (!handedOver) metrics.batchesInFlight.dec()
    }
  }

  return {
    eachBatch,
    /** Resolves once every batch handed over is committed (or given up). */
    async drain(): Promise<void> {
      while (pending.size > 0) await Promise.allSettled([...pending])
    },
  }
}
