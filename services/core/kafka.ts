// Must run before kafkajs loads: swaps in a native checksum (see the module).
import './kafkajs-native-crc.ts'
import {
  type Admin,
  type ConfigResourceTypes,
  type ITopicConfig,
  Kafka,
  type LogEntry,
  logLevel,
  Partitioners,
} from 'kafkajs'
import type { Logger } from './logger.ts'

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

export interface KafkaSettings {
  brokers: string
  clientId: string
}

export function createKafka(settings: KafkaSettings, logger: Logger): Kafka {
  const log = logger.child({ component: 'kafkajs' })
  return new Kafka({
    clientId: settings.clientId,
    brokers: settings.brokers.split(',').map((broker) => broker.trim()),
    connectionTimeout: 3_000,
    requestTimeout: 30_000,
    retry: { initialRetryTime: 200, retries: 5 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log: entry }: LogEntry) => {
        const { message, ...rest } = entry
        log[levels[level] ?? 'info'](rest, message)
      },
  })
}

export interface TopicSpec {
  topic: string
  numPartitions?: number
  configEntries?: ITopicConfig['configEntries']
}

/** Creates the topics that do not exist yet; existing ones are left as they are. */
export async function ensureTopics(admin: Admin, specs: TopicSpec[]): Promise<void> {
  const existing = new Set(await admin.listTopics())
  const missing = specs.filter((spec) => !existing.has(spec.topic))
  if (missing.length === 0) return
  await admin.createTopics({
    waitForLeaders: true,
    topics: missing.map((spec) => ({
      topic: spec.topic,
      numPartitions: spec.numPartitions ?? 6,
      replicationFactor: -1,
      configEntries: spec.configEntries ?? [],
    })),
  })
}

/** A topic's max.message.bytes as the broker applies it (the topic's setting or the broker default). */
export async function topicMaxMessageBytes(admin: Admin, topic: string): Promise<number | undefined> {
  // ConfigResourceTypes.TOPIC: kafkajs (CommonJS) does not offer the enum as a named ESM export.
  const topicResource = 2 as ConfigResourceTypes
  const described = await admin.describeConfigs({
    resources: [{ type: topicResource, name: topic, configNames: ['max.message.bytes'] }],
    includeSynonyms: false,
  })
  const entry = described.resources[0]?.configEntries.find(
    (config) => config.configName === 'max.message.bytes',
  )
  const value = Number(entry?.configValue)
  return Number.isInteger(value) && value > 0 ? value : undefined
}
