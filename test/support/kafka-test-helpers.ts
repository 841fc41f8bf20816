import { randomUUID } from 'node:crypto'
import { ensureTopics, withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import { describeKafkaError } from '../../core/kafka/kafka-errors.ts'
import { partitionOffsets } from '../../core/kafka/kafka-offsets.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import type { ConsumedMessage } from '../../core/kafka/partition-batches.ts'
import { startTopicReader } from '../../core/kafka/topic-reader.ts'
import { kafkaBrokers } from '../stack/servers.ts'

// Kafka plumbing for tests, on the product's own client: where the real broker is (the stack's,
// or a private one's `brokers`), throwaway topics, and a reader that collects messages until a
// condition holds (or fails after a deadline).
export function testKafka(brokers = kafkaBrokers()): KafkaSettings {
  return { brokers, clientId: 'va-test' }
}

export async function createTestTopic(
  kafka: KafkaSettings,
  prefix: string,
  numPartitions = 3,
): Promise<string> {
  const topic = `test.${prefix}.${randomUUID()}`
  await withKafkaAdmin(kafka, (admin) => ensureTopics(admin, [{ topic, numPartitions }]))
  return topic
}

export interface TopicReader {
  messages: ConsumedMessage[]
  waitFor(predicate: (messages: ConsumedMessage[]) => boolean, timeoutMs?: number): Promise<ConsumedMessage[]>
  stop(): Promise<void>
}

/** The next offset of every partition of a topic: where a reader starts to see only what comes after. */
export async function endOffsets(kafka: KafkaSettings, topic: string): Promise<Map<number, string>> {
  const offsets = await withKafkaAdmin(kafka, (admin) => partitionOffsets(admin, topic))
  return new Map(offsets.map(({ partition, high }) => [partition, String(high)]))
}

/** Reads a topic (no consumer group): from the beginning, or from the given offsets. */
export async function readTopic(
  kafka: KafkaSettings,
  topic: string,
  startOffsets?: Map<number, string>,
): Promise<TopicReader> {
  const messages: ConsumedMessage[] = []
  const reader = startTopicReader(kafka, topic, {
    from: new Map([...(startOffsets ?? [])].map(([partition, offset]) => [partition, BigInt(offset)])),
    onMessages: (_, received) => messages.push(...received),
  })
  return {
    messages,
    async waitFor(predicate, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs
      while (!predicate(messages)) {
        if (Date.now() > deadline) {
          const error = reader.lastError()
          throw new Error(
            `timed out after ${timeoutMs} ms with ${messages.length} messages` +
              (error ? ` (last fetch error: ${describeKafkaError(error)})` : ''),
          )
        }
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      return messages
    },
    stop: () => reader.stop(),
  }
}
