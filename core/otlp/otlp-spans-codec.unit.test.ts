import { readFileSync } from 'node:fs'
import avro from 'avsc'
import { describe, expect, it } from 'vitest'
import { emptyAttribute } from './otlp-decoded-request.ts'
import { decodeOtlpJson } from './otlp-json-decoding.ts'
import { type OtlpSpans, otlpSpansAvroSchema } from './otlp-spans.ts'
import { otlpSpansWriter } from './otlp-spans-codec.ts'
import { groupOtlpSpans } from './otlp-spans-grouping.ts'

// The span messages' compiled Avro writer writes exactly avsc's bytes for the schema (named
// Attribute type, ints, unions), and refuses what avsc refuses.
const avscType = avro.Type.forSchema(otlpSpansAvroSchema)
const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/otlp/${name}.json`, import.meta.url), 'utf8'))

function written(record: OtlpSpans): Buffer {
  const target = Buffer.alloc(1024 * 1024)
  return target.subarray(0, otlpSpansWriter.encode(record, target, 0))
}

describe('the OTLP span messages in Avro', () => {
  it.each(['livekit-1.x-conversation', 'pipecat-conversation'])('writes avsc bytes for %s', (name) => {
    const { messages } = groupOtlpSpans(decodeOtlpJson(fixture(name)), 'prod', 1795834346590)
    for (const message of messages) {
      expect(written(message).equals(avscType.toBuffer(message))).toBe(true)
      expect(avscType.fromBuffer(written(message))).toEqual(message)
    }
  })

  it('writes every kind of attribute value and negative ints as avsc does', () => {
    const value = (changes: object) => ({ ...emptyAttribute('k'), ...changes })
    const message: OtlpSpans = {
      source: 's',
      received_at: 0,
      trace_id: 'a'.repeat(32),
      resource_attributes: [value({ int_value: -9007199254740990 }), value({ double_value: Number.NaN })],
      spans: [
        {
          span_id: 'b'.repeat(16),
          parent_span_id: null,
          name: 'é'.repeat(300),
          kind: -1,
          start_time_us: 0,
          end_time_us: 2 ** 52,
          status_code: 2147483647,
          status_message: null,
          scope_name: null,
          scope_version: null,
          attributes: [
            value({ bool_value: false }),
            value({ json_value: '{}' }),
            value({ string_value: '' }),
          ],
          events: [{ name: 'e', time_us: 1, attributes: [] }],
        },
      ],
    }
    expect(written(message).equals(avscType.toBuffer(message))).toBe(true)
  })

  it('refuses an int out of range', () => {
    const [message] = groupOtlpSpans(decodeOtlpJson(fixture('pipecat-conversation')), 'prod', 1).messages
    message!.spans[0]!.kind = 2 ** 31
    expect(() => written(message!)).toThrow(/invalid int/)
  })
})
