import type { RecordsBatch } from '@platformatic/kafka'
import type { MessageHeaders } from './message-headers.ts'

// What one partition of a Kafka fetch response becomes for the worker: one batch of messages in
// offset order (the shape the worker's batch processor consumes: offsets as strings, key, value
// and header values as the bytes Kafka holds, the Confluent wire format untouched), and the offset
// to fetch next. Kept free of I/O so the offset rules have unit tests of their own:
// - records before the offset asked for are left out (Kafka returns whole record batches, so the
//   first one can start before it);
// - control records (transaction markers) are never messages, but the next offset moves past them;
// - the lag behind a batch is what the partition holds after its last message.

/** Message headers as the worker reads them: a name repeated in one message keeps every value. */
export type ConsumedHeaders = MessageHeaders

/** One Kafka message as the worker reads it. */
export interface ConsumedMessage {
  key: Buffer | null
  value: Buffer | null
  /** The message's offset in its partition (decimal string: offsets can pass 2^53). */
  offset: string
  /** Milliseconds since the epoch, as Kafka stamped the message (decimal string). */
  timestamp: string
  headers?: ConsumedHeaders
}

/** One partition's messages from one fetch, in offset order: what the batch processor handles. */
export interface PartitionBatch {
  topic: string
  partition: number
  messages: ConsumedMessage[]
  /** The partition's high watermark when fetched: the offset the next message will get. */
  highWatermark: string
  firstOffset: string
  lastOffset: string
  /** Messages the partition holds after this batch (a backlog behind it when > 0). */
  offsetLag: string
}

/** Transaction markers: never messages (the record batch attribute bit 5). */
const controlBatch = 0x20

/** The headers of a record, names as UTF-8 text; a repeated name collects its values, in order. */
export function recordHeaders(
  headers: readonly [Buffer | null, Buffer | null][],
): ConsumedHeaders | undefined {
  if (headers.length === 0) return undefined
  const result: ConsumedHeaders = {}
  for (const [name, value] of headers) {
    if (name === null) continue
    const key = name.toString('utf8')
    const bytes = value ?? Buffer.alloc(0)
    const seen = result[key]
    if (seen === undefined) result[key] = bytes
    else result[key] = Array.isArray(seen) ? [...seen, bytes] : [seen, bytes]
  }
  return result
}

/** The messages after the last one: what is left to read behind the batch (never below zero). */
export function offsetLag(highWatermark: bigint, lastOffset: bigint): bigint {
  const lag = highWatermark - 1n - lastOffset
  return lag > 0n ? lag : 0n
}

export interface FetchedPartition {
  /** The batch to hand over; undefined when the fetch held no message at or after the offset asked for. */
  batch: PartitionBatch | undefined
  /** Where the next fetch of this partition starts; undefined when the fetch returned no records. */
  nextOffset: bigint | undefined
}

/** One partition's records of a fetch response, asked for from `requestedOffset`. */
export function partitionBatch(
  topic: string,
  partition: number,
  requestedOffset: bigint,
  highWatermark: bigint,
  recordBatches: readonly RecordsBatch[] | null | undefined,
): FetchedPartition {
  if (!recordBatches || recordBatches.length === 0) return { batch: undefined, nextOffset: undefined }
  const messages: ConsumedMessage[] = []
  let nextOffset = requestedOffset
  for (const recordBatch of recordBatches) {
    const batchEnd = recordBatch.firstOffset + BigInt(recordBatch.lastOffsetDelta) + 1n
    if (batchEnd > nextOffset) nextOffset = batchEnd
    if (recordBatch.attributes & controlBatch) continue
    for (const record of recordBatch.records) {
      const offset = recordBatch.firstOffset + BigInt(record.offsetDelta)
      if (offset < requestedOffset) continue
      messages.push({
        key: record.key,
        value: record.value,
        offset: offset.toString(),
        timestamp: (recordBatch.firstTimestamp + record.timestampDelta).toString(),
        headers: recordHeaders(record.headers),
      })
    }
  }
  if (messages.length === 0) return { batch: undefined, nextOffset }
  const last = BigInt(messages[messages.length - 1]!.offset)
  return {
    batch: {
      topic,
      partition,
      messages,
      highWatermark: highWatermark.toString(),
      firstOffset: messages[0]!.offset,
      lastOffset: last.toString(),
      offsetLag: offsetLag(highWatermark, last).toString(),
    },
    nextOffset,
  }
}
