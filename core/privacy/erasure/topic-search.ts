import { randomUUID } from 'node:crypto'
import type { Kafka } from '../../kafka/kafka.ts'

// `forget` searches the DLQ and the quarantine topic for an erased caller's messages: Kafka cannot
// remove one message from a topic, so the command reports each one it finds and when the topic's
// retention removes it (docs/privacy.md). A message is the caller's when its key or value holds one
// of the needles (a session id, the number in a stored form, the call SID): Avro and JSON both
// carry strings as their UTF-8 bytes. Reads each topic from its start to where it ended when the
// search began, under a consumer group of its own that is deleted afterwards.
export interface TopicMatch {
  topic: string
  partition: number
  offset: string
  timestampMs: number
  /** When the topic's retention removes it (ms), if the topic has a time retention. */
  removedByMs: number | undefined
}

const topicResource = 2 // kafkajs ConfigResourceTypes.TOPIC
const searchTimeoutMs = 120_000

export function holdsAny(bytes: Buffer | null, needles: readonly Buffer[]): boolean {
  return bytes !== null && needles.some((needle) => needle.length > 0 && bytes.includes(needle))
}

async function retentionMs(kafka: Kafka, topics: string[]): Promise<Map<string, number>> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: topics.map((name) => ({ type: topicResource, name, configNames: ['retention.ms'] })),
    })
    return new Map(
      resources.map((resource) => [
        resource.resourceName,
        Number(
          resource.configEntries.find((entry) => entry.configName === 'retention.ms')?.configValue ?? -1,
        ),
      ]),
    )
  } finally {
    await admin.disconnect()
  }
}

export async function searchTopics(
  kafka: Kafka,
  topics: string[],
  needles: readonly Buffer[],
): Promise<TopicMatch[]> {
  const admin = kafka.admin()
  await admin.connect()
  const existing = new Set(await admin.listTopics())
  const present = topics.filter((topic) => existing.has(topic))
  const ends = new Map<string, bigint>()
  for (const topic of present)
    for (const partition of await admin.fetchTopicOffsets(topic))
      if (BigInt(partition.high) > BigInt(partition.low))
        ends.set(`${topic}/${partition.partition}`, BigInt(partition.high))
  const matches: TopicMatch[] = []
  if (ends.size > 0) {
    const retention = await retentionMs(kafka, present)
    const groupId = `voice-analytics-forget-${randomUUID()}`
    const consumer = kafka.consumer({ groupId })
    await consumer.connect()
    try {
      await consumer.subscribe({ topics: present, fromBeginning: true })
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `searching ${present.join(', ')} took over ${searchTimeoutMs / 1000} s; run forget again`,
              ),
            ),
          searchTimeoutMs,
        )
        const done = () => {
          clearTimeout(timer)
          resolve()
        }
        consumer
          .run({
            autoCommit: false,
            eachBatch: async ({ batch }) => {
              const key = `${batch.topic}/${batch.partition}`
              const end = ends.get(key)
              for (const message of batch.messages) {
                if (end === undefined || BigInt(message.offset) >= end) break
                if (holdsAny(message.key, needles) || holdsAny(message.value, needles)) {
                  const timestampMs = Number(message.timestamp)
                  const keepMs = retention.get(batch.topic) ?? -1
                  matches.push({
                    topic: batch.topic,
                    partition: batch.partition,
                    offset: message.offset,
                    timestampMs,
                    removedByMs: keepMs >= 0 ? timestampMs + keepMs : undefined,
                  })
                }
              }
              const last = batch.messages.at(-1)
              if (end !== undefined && last && BigInt(last.offset) + 1n >= end) ends.delete(key)
              if (ends.size === 0) done()
            },
          })
          .catch(reject)
      })
    } finally {
      await consumer.disconnect()
      await admin.deleteGroups([groupId]).catch(() => undefined)
    }
  }
  await admin.disconnect()
  return matches
}
