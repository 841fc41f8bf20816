import { Admin, ConfigResourceTypes } from '@platformatic/kafka'
import { hasBrokerError } from './kafka-errors.ts'
import { type KafkaSettings, platformaticClientOptions } from './kafka-settings.ts'
import { maxMessageBytesConfig, type TopicSpec, topicsToCreate } from './topic-creation.ts'

// The Kafka admin calls of the product (create the pipeline's topics, read their settings,
// readiness) on @platformatic/kafka, the one Kafka client of the ingress, the worker, the CLI and
// the tests. Offsets (a topic's, a group's) are in kafka-offsets.ts.

export function createKafkaAdmin(settings: KafkaSettings): Admin {
  return new Admin({
    ...platformaticClientOptions(settings),
  })
}

/** Runs `use` with an admin of its own, closed afterwards: for the CLI's and the tests' few calls. */
export async function withKafkaAdmin<T>(
  settings: KafkaSettings,
  use: (admin: Admin) => Promise<T>,
): Promise<T> {
  const admin = createKafkaAdmin(settings)
  try {
    return await use(admin)
  } finally {
    await admin.close()
  }
}

/** Whether every partition of each topic has a leader (a new topic has none for a moment). */
async function leadersElected(admin: Admin, names: string[]): Promise<boolean> {
  try {
    const { topics } = await admin.metadata({ topics: names, forceUpdate: true })
    return names.every((name) => topics.get(name)?.partitions.every((partition) => partition.leader >= 0))
  } catch (error) {
    if (hasBrokerError(error, 'UNKNOWN_TOPIC_OR_PARTITION') || hasBrokerError(error, 'LEADER_NOT_AVAILABLE'))
      return false
    throw error
  }
}

/**
 * Creates the topics that do not exist yet (see topicsToCreate) and waits until their partitions
 * have leaders (a topic is used at once after). A topic another process created in the meantime
 * counts as created.
 */
export async function ensureTopics(
  admin: Admin,
  specs: TopicSpec[],
  maxMessageBytes?: number,
  leaderWaitMs = 10_000,
): Promise<void> {
  const missing = topicsToCreate(await admin.listTopics(), specs, maxMessageBytes)
  if (missing.length === 0) return
  // One request per topic: this client applies one set of configs to every topic of a request.
  for (const topic of missing) {
    try {
      await admin.createTopics({
        topics: [{ topic: topic.topic, partitions: topic.numPartitions, replicas: -1 }],
        configs: topic.configEntries,
      })
    } catch (error) {
      if (!hasBrokerError(error, 'TOPIC_ALREADY_EXISTS')) throw error
    }
  }
  const names = missing.map((topic) => topic.topic)
  for (const deadline = Date.now() + leaderWaitMs; !(await leadersElected(admin, names)); ) {
    if (Date.now() > deadline) throw new Error(`no partition leaders yet for ${names.join(', ')}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The settings `configNames` of each topic as the broker applies them (its own or the broker's default). */
export async function topicConfigs(
  admin: Admin,
  names: string[],
  configNames: string[],
): Promise<Map<string, Map<string, string>>> {
  const resources = await admin.describeConfigs({
    includeSynonyms: false,
    resources: names.map((name) => ({
      resourceType: ConfigResourceTypes.TOPIC,
      resourceName: name,
      configurationKeys: configNames,
    })),
  })
  return new Map(
    resources.map((resource) => [
      resource.resourceName,
      new Map(
        resource.configs.flatMap((config) => (config.value == null ? [] : [[config.name, config.value]])),
      ),
    ]),
  )
}

/** The max.message.bytes of each topic as the broker applies it (its own or the broker's default). */
export async function topicMessageLimits(admin: Admin, names: string[]): Promise<Map<string, number>> {
  const limits = new Map<string, number>()
  for (const [name, configs] of await topicConfigs(admin, names, [maxMessageBytesConfig])) {
    const value = configs.get(maxMessageBytesConfig)
    if (value !== undefined) limits.set(name, Number(value))
  }
  return limits
}

/** Resolves once the broker answered with the topic's metadata (readiness); throws otherwise. */
export async function fetchTopicMetadata(admin: Admin, topic: string): Promise<void> {
  await admin.metadata({ topics: [topic], forceUpdate: true })
}
