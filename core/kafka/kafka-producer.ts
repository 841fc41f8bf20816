import {
  compatibilityPartitioner,
  type MessageToProduce,
  type Partitioner,
  Producer as PlatformaticProducer,
  serializersFrom,
} from '@platformatic/kafka'
import { type KafkaSettings, platformaticClientOptions } from './kafka-settings.ts'
import { eachHeader, type MessageHeaders } from './message-headers.ts'

// The producer of the ingress, of the worker's dead-letter topic and of the tests and benchmarks
// that publish as the ingress does, on @platformatic/kafka.

/** One topic's messages in a produce request, as the ingress hands them over. */
export interface TopicBatch {
  topic: string
  messages: { key: string | Buffer | null; value: Buffer | null; headers?: MessageHeaders }[]
}

/** The ingress's producer: idempotent, acks=all, one request per batch of topics. */
export interface BatchProducer {
  /** Connects and learns the topics' partitions (else the first send does). */
  connect(topicNames: string[]): Promise<void>
  /** Resolves once Kafka acknowledged every message (acks=all). */
  sendBatch(topicMessages: TopicBatch[]): Promise<void>
  disconnect(): Promise<void>
}

type ProducerPartitioner = Partitioner<Buffer, Buffer, Buffer, Buffer>

/**
 * Where a message goes (the client takes the result modulo the partition count): a keyed one
 * where the Java client (and kafkajs's DefaultPartitioner) puts it, so a session lands where it
 * did before the switch; an unkeyed one (another event kind without a session id) round robin.
 * (The client's own choice for a keyed message is not Java's, and a partitioner of ours that
 * returned 0 for no key would pile every unkeyed message on partition 0.)
 */
export function javaCompatiblePartitioner(): ProducerPartitioner {
  let nextUnkeyed = 0
  return (message, key) => {
    if (key !== undefined && key !== null) return compatibilityPartitioner(message, key)
    nextUnkeyed = (nextUnkeyed + 1) & 0x7fffffff
    return nextUnkeyed
  }
}

const toBuffer = (data: unknown): Buffer | undefined =>
  data === undefined || data === null ? undefined : Buffer.isBuffer(data) ? data : Buffer.from(String(data))

/**
 * The producer side runs on @platformatic/kafka: measured 2.8× kafkajs's rate (and a quarter of
 * its CPU per message) for 22 KB messages, acks=all, idempotent (bench/results/kafka-client.md).
 * Keys are partitioned like the Java client (and kafkajs's DefaultPartitioner), so a session
 * lands where it did before the switch. Requests time out after `requestTimeoutMs`; a failed
 * request is retried 3 times (the idempotent producer's sequence numbers make a retry safe).
 */
export function createBatchProducer(settings: KafkaSettings): BatchProducer {
  const producer = new PlatformaticProducer<Buffer, Buffer, Buffer, Buffer>({
    ...platformaticClientOptions(settings),
    idempotent: true,
    acks: -1,
    partitioner: javaCompatiblePartitioner(),
    serializers: serializersFrom(toBuffer),
  })
  return {
    async connect(topicNames) {
      await producer.metadata({ topics: topicNames })
    },
    async sendBatch(topicMessages) {
      const messages: MessageToProduce<Buffer, Buffer, Buffer, Buffer>[] = []
      for (const { topic, messages: batch } of topicMessages)
        for (const message of batch) {
          // A name repeated (a dead letter keeps its original's headers) keeps every value, in
          // order: the library keys the headers by the key Buffer itself, one Buffer per value.
          const headers = new Map<Buffer, Buffer>()
          if (message.headers)
            for (const [name, value] of eachHeader(message.headers))
              headers.set(Buffer.from(name), toBuffer(value)!)
          messages.push({
            topic,
            key: toBuffer(message.key),
            value: message.value ?? undefined,
            headers,
          })
        }
      await producer.send({ messages })
    },
    disconnect: () => producer.close(),
  }
}
