// Must run before kafkajs loads: swaps in a native checksum (see the module).
import './kafkajs-native-crc.ts'
import './kafkajs-negative-timeout.ts'
import {
  compatibilityPartitioner,
  type MessageToProduce,
  type Partitioner,
  Producer as PlatformaticProducer,
  serializersFrom,
} from '@platformatic/kafka'
import type { IHeaders } from 'kafkajs'
import {
  type Admin,
  type ConfigResourceTypes,
  type ITopicConfig,
  Kafka,
  type KafkaConfig,
  type LogEntry,
  logLevel,
  Partitioners,
  type Producer,
  type ProducerConfig,
} from 'kafkajs'
import type { Logger } from './logger.ts'
import { defaultBodyLimitBytes, topicMessageLimit } from './topics.ts'

// The one place that knows the Kafka client library (kafkajs, unmaintained since 2023):
// swapping it for another client touches this module and its callers' types only.
export type { Admin, Consumer, EachBatchPayload, IHeaders, KafkaMessage, Producer } from 'kafkajs'
export { Kafka }

/** Java-client-compatible murmur2 partitioning: the same key lands where a Java producer puts it. */
export const defaultPartitioner = Partitioners.DefaultPartitioner

const levels: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
}

// Notices kafkajs logs about choices this project made on purpose; anything else gets through.
const deliberateNotices = [
  // The ingress bounds its producer's retries (INGRESS_PUBLISH_TIMEOUT_MS bounds a request anyway,
  // the platform retries on 503, and the worker stores a conversation once by session_id).
  /^Limiting retries for the idempotent producer/,
]

/** The pino level of a kafkajs log entry, or undefined for a deliberate choice's notice. */
export function kafkaLogLevel(
  level: number,
  message: string,
): 'error' | 'warn' | 'info' | 'debug' | undefined {
  if (deliberateNotices.some((notice) => notice.test(message))) return undefined
  return levels[level] ?? 'info'
}

/** Producers default to the Java-compatible partitioner: kafkajs then has no notice to print about its default. */
class ProjectKafka extends Kafka {
  override producer(config: ProducerConfig = {}): Producer {
    return super.producer({ createPartitioner: defaultPartitioner, ...config })
  }
}

export interface KafkaSettings {
  brokers: string
  clientId: string
  /** Longest one request to a broker may take (default 30 s). */
  requestTimeoutMs?: number
}

/** Kafka refused a message, or a batch of them, as larger than the topic takes. */
export function isMessageTooLarge(error: unknown): boolean {
  const type = (error as { type?: unknown })?.type
  if (type === 'MESSAGE_TOO_LARGE' || type === 'RECORD_LIST_TOO_LARGE') return true
  // @platformatic/kafka: the broker's error somewhere in the error or its aggregated causes.
  const found = (error as { findBy?: (property: string, value: unknown) => unknown })?.findBy
  return (
    typeof found === 'function' &&
    ['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE'].some((id) => found.call(error, 'apiId', id) != null)
  )
}

export function createKafka(settings: KafkaSettings, logger: Logger): Kafka {
  const log = logger.child({ component: 'kafkajs' })
  const config: KafkaConfig = {
    clientId: settings.clientId,
    brokers: settings.brokers.split(',').map((broker) => broker.trim()),
    connectionTimeout: 3_000,
    requestTimeout: settings.requestTimeoutMs ?? 30_000,
    retry: { initialRetryTime: 200, retries: 5 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log: entry }: LogEntry) => {
        const { message, ...rest } = entry
        const pinoLevel = kafkaLogLevel(level, message)
        if (pinoLevel) log[pinoLevel](rest, message)
      },
  }
  return new ProjectKafka(config)
}

export interface TopicSpec {
  topic: string
  numPartitions?: number
  configEntries?: ITopicConfig['configEntries']
}

/**
 * Creates the topics that do not exist yet; existing ones are left as they are. Each new topic
 * takes messages of `maxMessageBytes` (the broker's default is 1 MiB, far below what the ingress
 * accepts) unless its spec sets max.message.bytes itself.
 */
export async function ensureTopics(
  admin: Admin,
  specs: TopicSpec[],
  maxMessageBytes = topicMessageLimit(defaultBodyLimitBytes),
): Promise<void> {
  const existing = new Set(await admin.listTopics())
  const missing = specs.filter((spec) => !existing.has(spec.topic))
  if (missing.length === 0) return
  await admin.createTopics({
    waitForLeaders: true,
    topics: missing.map((spec) => {
      const configEntries = spec.configEntries ?? []
      return {
        topic: spec.topic,
        numPartitions: spec.numPartitions ?? 6,
        replicationFactor: -1,
        configEntries: configEntries.some((entry) => entry.name === 'max.message.bytes')
          ? configEntries
          : [...configEntries, { name: 'max.message.bytes', value: String(maxMessageBytes) }],
      }
    }),
  })
}

// kafkajs's ConfigResourceTypes.TOPIC; a value, since Node's CommonJS interop does not see that export.
const topicResource = 2 as ConfigResourceTypes

/** The max.message.bytes of each topic as the broker applies it (its own or the broker's default). */
export async function topicMessageLimits(admin: Admin, names: string[]): Promise<Map<string, number>> {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: names.map((name) => ({ type: topicResource, name, configNames: ['max.message.bytes'] })),
  })
  const limits = new Map<string, number>()
  for (const resource of resources) {
    const entry = resource.configEntries.find((config) => config.configName === 'max.message.bytes')
    if (entry) limits.set(resource.resourceName, Number(entry.configValue))
  }
  return limits
}

/** One topic's messages in a produce request, as the ingress hands them over. */
export interface TopicBatch {
  topic: string
  messages: { key: string | null; value: Buffer; headers?: IHeaders }[]
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
    clientId: settings.clientId,
    bootstrapBrokers: settings.brokers.split(',').map((broker) => broker.trim()),
    connectTimeout: 3_000,
    requestTimeout: settings.requestTimeoutMs ?? 30_000,
    retries: 3,
    retryDelay: 200,
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
          const headers: Record<string, Buffer> = {}
          for (const [name, value] of Object.entries(message.headers ?? {})) {
            // Never merged or dropped silently: no caller sends a header twice today.
            if (Array.isArray(value))
              throw new TypeError(`header ${name}: repeated headers are not supported`)
            if (value !== undefined) headers[name] = toBuffer(value)!
          }
          messages.push({
            topic,
            key: toBuffer(message.key),
            value: message.value,
            headers,
          })
        }
      await producer.send({ messages })
    },
    disconnect: () => producer.close(),
  }
}
