import avro from 'avsc'
import { describe, expect, it } from 'vitest'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { compileAvroWriter } from './avro-event-writer.ts'
import { wireEncoder } from './event-codec.ts'
import { toAvroRecord } from './event-record.ts'
import { eventAvroSchema } from './event-schema.ts'

// The compiled writer must write exactly avsc's bytes for the event schema, or the worker (which
// decodes with avsc through the registry client) would read something else.
const type = avro.Type.forSchema(eventAvroSchema as avro.Schema)
const writer = compileAvroWriter(eventAvroSchema)
const ingest = { source: 'prod', receivedAt: 1_764_000_000_123 }

function written(record: unknown, size = 1024 * 1024): Buffer {
  const target = Buffer.alloc(size)
  const end = writer.encode(record, target, 3)
  expect(end).toBeGreaterThan(0)
  return target.subarray(3, end)
}

describe('compileAvroWriter on the event schema', () => {
  it('writes the bytes avsc writes for generated conversations, unknown fields included', () => {
    const events = [
      ...generateConversations({ count: 60, seed: 11, unknownFieldRate: 0.5 }),
      ...generateConversations({ count: 3, seed: 12, historyItems: 600 }),
      ...generateConversations({ count: 20, seed: 13, failedRoomRate: 1 }),
    ]
    for (const event of events) {
      const record = toAvroRecord(event, ingest)
      expect(written(record)).toEqual(type.toBuffer(record))
    }
  })

  it('writes edge values as avsc does: multi-byte text at the short-string boundary, long numbers, maps, empty arrays', () => {
    const [event] = generateConversations({ count: 1, seed: 14, historyItems: 3 })
    const record = toAvroRecord(event!, ingest)
    const data = record.data as Record<string, unknown>
    const history = data.history as Array<Record<string, unknown>>
    const texts = [
      '',
      'a'.repeat(21),
      'a'.repeat(22),
      'é'.repeat(21), // 42 bytes
      '€'.repeat(21), // 63 bytes: the largest one-byte length
      '€'.repeat(22), // 66 bytes: a two-byte length
      '😀'.repeat(10), // surrogate pairs: 20 units, 40 bytes
      `${'x'.repeat(20)}😀`,
      'ü'.repeat(5000),
    ]
    for (const [index, text] of texts.entries()) {
      history[0]!.content = text
      data.agent_name = text
      data.url_parameters = { [text]: text, plain: 'v', ключ: 'значение' }
      data.duration_seconds = index % 2 === 0 ? -0.5 : 1e300
      history[1]!.tools_added = []
      record.received_at = [0, -1, 63, 64, -65, 2 ** 31, -(2 ** 40), 9007199254740990, -9007199254740990][
        index
      ]
      expect(written(record)).toEqual(type.toBuffer(record))
    }
  })

  it('writes an absent optional field as its default (null), as avsc does', () => {
    const [event] = generateConversations({ count: 1, seed: 17, historyItems: 2 })
    const record = { ...toAvroRecord(event!, ingest), source: undefined }
    expect(written(record)).toEqual(type.toBuffer(record))
  })

  it('says how many bytes are missing when the target is short, and writes right into a larger one', () => {
    const [event] = generateConversations({ count: 1, seed: 15, historyItems: 40 })
    const record = toAvroRecord(event!, ingest)
    const expected = type.toBuffer(record)
    const short = Buffer.alloc(1000)
    const missing = writer.encode(record, short, 5)
    expect(missing).toBe(1000 - (5 + expected.length))
    expect(written(record, 5 + expected.length + 3)).toEqual(expected)
  })

  it('refuses values of the wrong type, as avsc does', () => {
    const [event] = generateConversations({ count: 1, seed: 16, historyItems: 2 })
    for (const [field, value] of [
      ['event', 3],
      ['received_at', 1.5],
      ['received_at', '1'],
      ['source', 5],
      ['received_at', 9007199254740991],
    ] as const) {
      const record = { ...toAvroRecord(event!, ingest), [field]: value }
      expect(() => type.toBuffer(record), field).toThrow()
      expect(() => writer.encode(record, Buffer.alloc(1 << 20), 0)).toThrow(/invalid/)
    }
  })

  it('serves the wire encoder: a record larger than its scratch, then a small one, framed right', () => {
    const encode = wireEncoder(7, compileAvroWriter(eventAvroSchema))
    const framed = (body: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), body])
    const [large] = generateConversations({ count: 1, seed: 18, historyItems: 600 })
    const [small] = generateConversations({ count: 1, seed: 19, historyItems: 2 })
    const largeRecord = toAvroRecord(large!, ingest)
    expect(type.toBuffer(largeRecord).length).toBeGreaterThan(64 * 1024)
    expect(encode(largeRecord)).toEqual(framed(type.toBuffer(largeRecord)))
    const smallRecord = toAvroRecord(small!, ingest)
    expect(encode(smallRecord)).toEqual(framed(type.toBuffer(smallRecord)))
  })

  // avsc writes a lone surrogate in a string of up to 64 bytes as CESU bytes that decode to other
  // text ('a\ud800b' came back as two replacement characters and 'b'); longer strings, and all of
  // ours, carry U+FFFD, valid UTF-8, as Buffer does.
  it('writes a lone surrogate as U+FFFD whatever the string length', () => {
    const [event] = generateConversations({ count: 1, seed: 20, historyItems: 1 })
    const record = toAvroRecord(event!, ingest)
    const data = record.data as Record<string, unknown>
    for (const name of ['a\ud800b', `${'x'.repeat(70)}\udc00`]) {
      data.agent_name = name
      const decoded = type.fromBuffer(written(record)) as { data: { agent_name: string } }
      expect(decoded.data.agent_name).toBe(name.replace(/[\ud800-\udfff]/, '\ufffd'))
    }
  })
})
