import { defaultBodyLimitBytes, topicMessageLimit } from './topics.ts'

// Which of the pipeline's topics to create, and with which settings: the decision of
// kafka-admin.ts's ensureTopics, kept free of I/O so that it has unit tests of its own.

export interface TopicConfigEntry {
  name: string
  value: string
}

export interface TopicSpec {
  topic: string
  numPartitions?: number
  configEntries?: TopicConfigEntry[]
}

export interface TopicToCreate {
  topic: string
  numPartitions: number
  configEntries: TopicConfigEntry[]
}

export const maxMessageBytesConfig = 'max.message.bytes'

/**
 * How long a new topic keeps its messages (KAFKA_RETENTION_HOURS, default 7 days): also how long an
 * erased caller's raw events stay in the event topic, DLQ and quarantine (docs/privacy.md). Kafka
 * cannot remove one message from them; the worker never stores a forgotten conversation again.
 */
export function retentionSpec(topic: string, retentionHours: number): TopicSpec {
  return { topic, configEntries: [{ name: 'retention.ms', value: String(retentionHours * 3_600_000) }] }
}

/**
 * The specs of the topics that do not exist yet; existing ones are left as they are. Each new
 * topic takes messages of `maxMessageBytes` (the broker's default is 1 MiB, far below what the
 * ingress accepts) unless its spec sets max.message.bytes itself.
 */
export function topicsToCreate(
  existing: Iterable<string>,
  specs: TopicSpec[],
  maxMessageBytes = topicMessageLimit(defaultBodyLimitBytes),
): TopicToCreate[] {
  const present = new Set(existing)
  return specs
    .filter((spec) => !present.has(spec.topic))
    .map((spec) => {
      const configEntries = spec.configEntries ?? []
      return {
        topic: spec.topic,
        numPartitions: spec.numPartitions ?? 6,
        configEntries: configEntries.some((entry) => entry.name === maxMessageBytesConfig)
          ? configEntries
          : [...configEntries, { name: maxMessageBytesConfig, value: String(maxMessageBytes) }],
      }
    })
}
