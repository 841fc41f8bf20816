import { createHash } from 'node:crypto'

// The insert_deduplication_token of one write: the Kafka offset ranges it covers, each with a digest
// of its messages. Retrying the same write sends the same token, and ClickHouse drops the repeated
// blocks (non_replicated_deduplication_window on every table, including the rollup behind the
// view). Offsets alone do not identify data: a topic deleted and re-created (or a cluster moved)
// starts again at offset 0, and ClickHouse would silently drop new data under an old token; the
// digest of the messages' keys, timestamps and bytes makes the token name the data itself.
// The transform's version is part of it so that a replay by a changed transform is not dropped.
export const transformVersion = 'rows-v2'

export interface OffsetRange {
  topic: string
  partition: number
  firstOffset: string
  lastOffset: string
  /** messagesDigest of the range's messages whose rows the write carries. */
  digest: string
}

interface DigestedMessage {
  key?: Buffer | string | null
  value: Buffer | null
  timestamp: string
  offset: string
}

const field = (hash: ReturnType<typeof createHash>, value: Buffer | string | null | undefined) => {
  // Length-prefixed, so that no two different sequences of fields hash alike.
  const bytes = value == null ? Buffer.alloc(0) : Buffer.isBuffer(value) ? value : Buffer.from(value)
  hash.update(`${value == null ? -1 : bytes.length}:`)
  hash.update(bytes)
}

/** A digest of messages (offset, key, timestamp, value), in their order. */
export function messagesDigest(messages: readonly DigestedMessage[]): string {
  const hash = createHash('sha256')
  for (const message of messages) {
    field(hash, message.offset)
    field(hash, message.key)
    field(hash, message.timestamp)
    field(hash, message.value)
  }
  return hash.digest('hex').slice(0, 32)
}

export function insertToken(ranges: readonly OffsetRange[]): string {
  const parts = [...ranges]
    .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1))
    .map(
      (range) => `${range.topic}/${range.partition}/${range.firstOffset}-${range.lastOffset}#${range.digest}`,
    )
  return `${transformVersion}:${parts.join(',')}`
}
