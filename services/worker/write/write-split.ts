import type { ConsumedMessage } from '../../../core/kafka/partition-batches.ts'
import type { MessageRows } from './batch-rows.ts'
import { messagesDigest, type OffsetRange } from './insert-token.ts'

// How a write ClickHouse refused is cut into smaller ones: by ClickHouse partition first (every
// table is PARTITION BY toYYYYMM(event_time), schemas/clickhouse/migrations), then one message
// per write. Each sub-write names its own Kafka offsets and their messages' digest (for its
// deduplication token), so a retry
// of the same sub-write is dropped by ClickHouse and sub-writes never shadow one another.

/** The ClickHouse partition of a message's rows: the UTC month of its conversation's event_time. */
export function clickHousePartition(entry: MessageRows): string {
  const eventTime = entry.rows.conversations[0]?.event_time
  return typeof eventTime === 'number' ? new Date(eventTime).toISOString().slice(0, 7) : 'none'
}

/** Messages grouped by ClickHouse partition, in the order each partition first appears. */
export function splitByPartition(entries: readonly MessageRows[]): MessageRows[][] {
  const groups = new Map<string, MessageRows[]>()
  for (const entry of entries) {
    const key = clickHousePartition(entry)
    const group = groups.get(key)
    if (group) group.push(entry)
    else groups.set(key, [entry])
  }
  return [...groups.values()]
}

/** The Kafka offsets of some messages as ranges: consecutive offsets of a partition join one range. */
export function offsetRanges(entries: readonly MessageRows[]): OffsetRange[] {
  const sorted = [...entries].sort(
    (a, b) =>
      a.delivery.topic.localeCompare(b.delivery.topic) ||
      a.delivery.partition - b.delivery.partition ||
      a.delivery.offset - b.delivery.offset,
  )
  const ranges: Array<OffsetRange & { messages: ConsumedMessage[] }> = []
  let last: { topic: string; partition: number; offset: number } | undefined
  for (const { delivery, message } of sorted) {
    const current = ranges.at(-1)
    if (
      current &&
      last &&
      last.topic === delivery.topic &&
      last.partition === delivery.partition &&
      delivery.offset === last.offset + 1
    ) {
      current.lastOffset = String(delivery.offset)
      current.messages.push(message)
    } else
      ranges.push({
        topic: delivery.topic,
        partition: delivery.partition,
        firstOffset: String(delivery.offset),
        lastOffset: String(delivery.offset),
        digest: '',
        messages: [message],
      })
    last = delivery
  }
  return ranges.map(({ messages, ...range }) => ({ ...range, digest: messagesDigest(messages) }))
}
