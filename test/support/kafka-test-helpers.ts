import { randomUUID } from 'node:crypto'
import {
  type Consumer,
  createKafka,
  ensureTopics,
  type Kafka,
  type KafkaMessage,
} from '../../core/kafka/kafka.ts'
import { createLogger } from '../../core/runtime/logger.ts'
import { kafkaBrokers } from '../stack/servers.ts'

// Kafka plumbing for tests: a client on the real broker, throwaway topics, and a reader
// that collects messages until a condition holds (or fails after a deadline).
export function testKafka(): Kafka {
  return createKafka({ brokers: kafkaBrokers(), clientId: 'va-test' }, createLogger('test', 'warn'))
}

export async function createTestTopic(kafka: Kafka, prefix: string, numPartitions = 3): Promise<string> {
  const topic = `test.${prefix}.${randomUUID()}`
  const admin = kafka.admin()
  await admin.connect()
  try {
    await ensureTopics(admin, [{ topic, numPartitions }])
  } finally {
    await admin.disconnect()
  }
  return topic
}

export interface TopicReader {
  messages: KafkaMessage[]
  waitFor(predicate: (messages: KafkaMessage[]) => boolean, timeoutMs?: number): Promise<KafkaMessage[]>
  stop(): Promise<void>
}

/** The next offset of every partition of a topic: where a reader starts to see only what comes after. */
export async function endOffsets(kafka: Kafka, topic: string): Promise<Map<number, string>> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    const offsets = await admin.fetchTopicOffsets(topic)
    return new Map(offsets.map(({ partition, offset }) => [partition, offset]))
  } finally {
    await admin.disconnect()
  }
}

/** Reads a topic with a fresh consumer group: from the beginning, or from the given offsets. */
export async function readTopic(
  kafka: Kafka,
  topic: string,
  startOffsets?: Map<number, string>,
): Promise<TopicReader> {
  const consumer: Consumer = kafka.consumer({ groupId: `va-test-${randomUUID()}` })
  const messages: KafkaMessage[] = []
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  await consumer.run({
    eachMessage: async ({ message }) => {
      messages.push(message)
    },
  })
  for (const [partition, offset] of startOffsets ?? []) consumer.seek({ topic, partition, offset })
  return {
    messages,
    async waitFor(predicate, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs
      while (!predicate(messages)) {
        if (Date.now() > deadline)
          throw new Error(`timed out after ${timeoutMs} ms with ${messages.length} messages`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      return messages
    },
    stop: () => consumer.disconnect(),
  }
}
