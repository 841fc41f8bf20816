import type { AvroRecord } from '../core/event/event-record.ts'
import type { EachBatchPayload, KafkaMessage, Producer } from '../core/kafka.ts'
import type { Logger } from '../core/logger.ts'
import type { BackoffSettings } from './backoff.ts'
import { messageRows } from './batch-rows.ts'
import type { BatchWriter } from './batch-writer.ts'
import { deadLetterMessage, type Poison } from './dead-letter.ts'
import { DependencyError, decodeMessage } from './decode-message.ts'
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

  return async function eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, heartbeat } = payload
    if (batch.isEmpty()) return
    const started = performance.now()
    const { topic, partition } = batch
    metrics.batchesInFlight.inc()
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
      if (rows.entries.length > 0) {
        const range = { topic, partition, firstOffset: batch.firstOffset()!, lastOffset: batch.lastOffset() }
        const rejected = await deps.writer.write(range, rows.entries, heartbeat)
        for (const { entry, error } of rejected)
          poison.push({ message: entry.message, topic, partition, reason: 'rejected_by_clickhouse', error })
        const now = Date.now()
        for (const entry of rows.entries) {
          const receivedAt = entry.rows.conversations[0]?.received_at
          if (typeof receivedAt === 'number') metrics.eventAge.observe((now - receivedAt) / 1000)
        }
      }
      if (poison.length > 0) await sendDeadLetters(poison, heartbeat)

      const lastOffset = batch.lastOffset()
      payload.resolveOffset(lastOffset)
      await payload.commitOffsetsIfNecessary({
        topics: [{ topic, partitions: [{ partition, offset: (BigInt(lastOffset) + 1n).toString() }] }],
      })
      metrics.lastCommit.set(Date.now() / 1000)
      metrics.consumerLag.set(
        { topic, partition: String(partition) },
        Math.max(0, Number(BigInt(batch.highWatermark) - BigInt(lastOffset) - 1n)),
      )
      metrics.messagesConsumed.inc({ outcome: 'dead_lettered' }, poison.length)
      metrics.messagesConsumed.inc({ outcome: 'inserted' }, batch.messages.length - poison.length)
      metrics.batchDuration.observe((performance.now() - started) / 1000)
    } catch (error) {
      // Stopping mid-batch: commit nothing; the next owner of the partition reads it again.
      if (error instanceof WorkerStoppingError) return
      throw error
    } finally {
      metrics.batchesInFlight.dec()
    }
  }
}
