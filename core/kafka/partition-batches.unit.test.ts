import type { KafkaRecord, RecordsBatch } from '@platformatic/kafka'
import { describe, expect, it } from 'vitest'
import { offsetLag, partitionBatch, recordHeaders } from './partition-batches.ts'

// A fetch response's records for one partition, as @platformatic/kafka parses them.
const record = (offsetDelta: number, value: string, headers: KafkaRecord['headers'] = []): KafkaRecord => ({
  length: 0,
  attributes: 0,
  timestampDelta: BigInt(offsetDelta),
  offsetDelta,
  key: Buffer.from(`key-${value}`),
  value: Buffer.from(value),
  headers,
})
const recordBatch = (firstOffset: bigint, records: KafkaRecord[], attributes = 0): RecordsBatch => ({
  firstOffset,
  length: 0,
  partitionLeaderEpoch: 0,
  magic: 2,
  crc: 0,
  attributes,
  lastOffsetDelta: records.length === 0 ? 0 : records[records.length - 1]!.offsetDelta,
  firstTimestamp: 1_700_000_000_000n,
  maxTimestamp: 0n,
  producerId: -1n,
  producerEpoch: -1,
  firstSequence: -1,
  records,
})

describe('partitionBatch', () => {
  it('hands over the messages in offset order, key and value as the bytes Kafka holds', () => {
    const fetched = partitionBatch('t', 3, 10n, 20n, [
      recordBatch(10n, [record(0, 'a'), record(1, 'b')]),
      recordBatch(12n, [record(0, 'c')]),
    ])
    expect(fetched.nextOffset).toBe(13n)
    const batch = fetched.batch!
    expect(batch).toMatchObject({
      topic: 't',
      partition: 3,
      firstOffset: '10',
      lastOffset: '12',
      highWatermark: '20',
      offsetLag: '7',
    })
    expect(batch.messages.map((message) => message.offset)).toEqual(['10', '11', '12'])
    expect(batch.messages.map((message) => message.value?.toString())).toEqual(['a', 'b', 'c'])
    expect(Buffer.isBuffer(batch.messages[0]!.key)).toBe(true)
    expect(batch.messages[1]!.timestamp).toBe('1700000000001')
  })

  it('leaves out the records before the offset asked for (a record batch starting earlier)', () => {
    const fetched = partitionBatch('t', 0, 12n, 15n, [
      recordBatch(10n, [record(0, 'a'), record(1, 'b'), record(2, 'c'), record(3, 'd')]),
    ])
    expect(fetched.batch!.messages.map((message) => message.offset)).toEqual(['12', '13'])
    expect(fetched.batch!.firstOffset).toBe('12')
    expect(fetched.nextOffset).toBe(14n)
  })

  it('moves past transaction markers without handing them over', () => {
    const fetched = partitionBatch('t', 0, 0n, 4n, [
      recordBatch(0n, [record(0, 'a'), record(1, 'b')]),
      recordBatch(2n, [record(0, 'marker')], 0x20),
    ])
    expect(fetched.batch!.messages.map((message) => message.value?.toString())).toEqual(['a', 'b'])
    expect(fetched.batch!.lastOffset).toBe('1')
    expect(fetched.nextOffset).toBe(3n)
  })

  it('only a marker: nothing to hand over, and the next fetch starts after it', () => {
    expect(partitionBatch('t', 0, 5n, 6n, [recordBatch(5n, [record(0, 'marker')], 0x20)])).toEqual({
      batch: undefined,
      nextOffset: 6n,
    })
  })

  it('no records: nothing to hand over, the position stays', () => {
    expect(partitionBatch('t', 0, 5n, 5n, [])).toEqual({ batch: undefined, nextOffset: undefined })
    expect(partitionBatch('t', 0, 5n, 5n, null)).toEqual({ batch: undefined, nextOffset: undefined })
  })

  it('offsets beyond 2^53 stay exact', () => {
    const first = 2n ** 60n
    const fetched = partitionBatch('t', 0, first, first + 2n, [recordBatch(first, [record(0, 'a')])])
    expect(fetched.batch!.firstOffset).toBe(first.toString())
    expect(fetched.nextOffset).toBe(first + 1n)
  })
})

describe('offsetLag', () => {
  it('is what the partition holds after the last message', () => {
    expect(offsetLag(100n, 49n)).toBe(50n)
    expect(offsetLag(100n, 99n)).toBe(0n)
  })

  it('is never negative (a high watermark read before the last message was written)', () => {
    expect(offsetLag(10n, 20n)).toBe(0n)
  })
})

describe('recordHeaders', () => {
  it('names as text, values as bytes; a repeated name keeps every value in order', () => {
    const headers = recordHeaders([
      [Buffer.from('a'), Buffer.from('1')],
      [Buffer.from('b'), null],
      [Buffer.from('a'), Buffer.from('2')],
    ])
    expect(headers).toEqual({ a: [Buffer.from('1'), Buffer.from('2')], b: Buffer.alloc(0) })
  })

  it('no headers: undefined', () => {
    expect(recordHeaders([])).toBeUndefined()
  })
})
