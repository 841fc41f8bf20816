import { topicConfigs, withKafkaAdmin } from '../../kafka/kafka-admin.ts'
import { describeKafkaError } from '../../kafka/kafka-errors.ts'
import { partitionOffsets } from '../../kafka/kafka-offsets.ts'
import type { KafkaSettings } from '../../kafka/kafka-settings.ts'
import { startTopicReader } from '../../kafka/topic-reader.ts'

// `forget` searches the DLQ and the quarantine topic for an erased caller's messages: Kafka cannot
// remove one message from a topic, so the command reports each one it finds and when the topic's
// retention removes it (docs/privacy.md). A message is the caller's when its key or value holds one
// of the needles (a session id, the number in a stored form, the call SID): Avro and JSON both
// carry strings as their UTF-8 bytes. Reads each topic from its start to where it ended when the
// search began, without a consumer group (core/kafka/topic-reader.ts).
export interface TopicMatch {
  topic: string
  partition: number
  offset: string
  timestampMs: number
  /** When the topic's retention removes it (ms), if the topic has a time retention. */
  removedByMs: number | undefined
}

const searchTimeoutMs = 120_000

export function holdsAny(bytes: Buffer | null, needles: readonly Buffer[]): boolean {
  return bytes !== null && needles.some((needle) => needle.length > 0 && bytes.includes(needle))
}

/** The messages of one topic that hold a needle, from its start up to `ends` (partition -> end). */
async function searchTopic(
  settings: KafkaSettings,
  topic: string,
  ends: ReadonlyMap<number, bigint>,
  needles: readonly Buffer[],
  retentionMs: number,
): Promise<TopicMatch[]> {
  const matches: TopicMatch[] = []
  const reader = startTopicReader(settings, topic, {
    until: ends,
    onMessages(partition, messages) {
      for (const message of messages)
        if (holdsAny(message.key, needles) || holdsAny(message.value, needles)) {
          const timestampMs = Number(message.timestamp)
          matches.push({
            topic,
            partition,
            offset: message.offset,
            timestampMs,
            removedByMs: retentionMs >= 0 ? timestampMs + retentionMs : undefined,
          })
        }
    },
  })
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const cause = reader.lastError()
      reject(
        new Error(
          `searching ${topic} took over ${searchTimeoutMs / 1000} s; run forget again` +
            (cause ? ` (last error: ${describeKafkaError(cause)})` : ''),
        ),
      )
    }, searchTimeoutMs)
  })
  try {
    await Promise.race([reader.done, timedOut])
  } finally {
    clearTimeout(timer)
    await reader.stop()
  }
  return matches.sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)))
}

export async function searchTopics(
  settings: KafkaSettings,
  topics: string[],
  needles: readonly Buffer[],
): Promise<TopicMatch[]> {
  const searches = await withKafkaAdmin(settings, async (admin) => {
    const existing = new Set(await admin.listTopics())
    const present = topics.filter((topic) => existing.has(topic))
    const retention = present.length > 0 ? await topicConfigs(admin, present, ['retention.ms']) : new Map()
    const planned = []
    for (const topic of present) {
      const ends = new Map<number, bigint>()
      for (const { partition, low, high } of await partitionOffsets(admin, topic))
        if (high > low) ends.set(partition, high)
      const retentionMs = Number(retention.get(topic)?.get('retention.ms') ?? -1)
      if (ends.size > 0) planned.push({ topic, ends, retentionMs })
    }
    return planned
  })
  const found = await Promise.all(
    searches.map(({ topic, ends, retentionMs }) => searchTopic(settings, topic, ends, needles, retentionMs)),
  )
  return found.flat()
}
