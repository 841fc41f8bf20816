// Must run before kafkajs loads: swaps in a native checksum (see the module).
import './kafkajs-native-crc.ts'
import './kafkajs-negative-timeout.ts'
import {
  type Admin,
  type ConfigResourceTypes,
  Kafka,
  type KafkaConfig,
  type LogEntry,
  logLevel,
  Partitioners,
  type Producer,
  type ProducerConfig,
} from 'kafkajs'
import type { Logger } from '../runtime/logger.ts'
import { brokerList, type KafkaSettings } from './kafka-settings.ts'
import { maxMessageBytesConfig, type TopicSpec, topicsToCreate } from './topic-creation.ts'

// The one place that knows kafkajs (unmaintained since 2023): the CLI and the tests use it. The
// ingress and the worker do not load this module: their producers, admin and the worker's consumer
// run on @platformatic/kafka (kafka-producer.ts, kafka-admin.ts, kafka-consumer.ts); the producer
// is re-exported here for the others.
export type { Admin, Consumer, IHeaders, KafkaMessage, Producer } from 'kafkajs'
export { isMessageTooLarge } from './kafka-errors.ts'
export {
  type BatchProducer,
  createBatchProducer,
  javaCompatiblePartitioner,
  type TopicBatch,
} from './kafka-producer.ts'
export type { KafkaSettings } from './kafka-settings.ts'
export type { TopicSpec } from './topic-creation.ts'
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

export function createKafka(settings: KafkaSettings, logger: Logger): Kafka {
  const log = logger.child({ component: 'kafkajs' })
  const config: KafkaConfig = {
    clientId: settings.clientId,
    brokers: brokerList(settings),
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

/** Creates the topics that do not exist yet (see topicsToCreate); existing ones are left as they are. */
export async function ensureTopics(
  admin: Admin,
  specs: TopicSpec[],
  maxMessageBytes?: number,
): Promise<void> {
  const missing = topicsToCreate(await admin.listTopics(), specs, maxMessageBytes)
  if (missing.length === 0) return
  await admin.createTopics({
    waitForLeaders: true,
    topics: missing.map((topic) => ({ ...topic, replicationFactor: -1 })),
  })
}

// kafkajs's ConfigResourceTypes.TOPIC; a value, since Node's CommonJS interop does not see that export.
const topicResource = 2 as ConfigResourceTypes

/** The max.message.bytes of each topic as the broker applies it (its own or the broker's default). */
export async function topicMessageLimits(admin: Admin, names: string[]): Promise<Map<string, number>> {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: names.map((name) => ({ type: topicResource, name, configNames: [maxMessageBytesConfig] })),
  })
  const limits = new Map<string, number>()
  for (const resource of resources) {
    const entry = resource.configEntries.find((config) => config.configName === maxMessageBytesConfig)
    if (entry) limits.set(resource.resourceName, Number(entry.configValue))
  }
  return limits
}
