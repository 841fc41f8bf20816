import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { encodeOtlpJsonAsProtobuf, exportTraceServiceRequest } from '../../test/support/otlp-proto-types.ts'
import { OtlpDecodeError } from './otlp-decoded-request.ts'
import { decodeOtlpJson } from './otlp-json-decoding.ts'
import { decodeOtlpProtobuf } from './otlp-protobuf-decoding.ts'

// The two encodings of OTLP/HTTP decode to the same contract shapes: the frameworks' real requests
// (test/fixtures/otlp/), encoded as protobuf by protobufjs from the vendored .proto files (an
// encoder independent of the decoder), and the edge cases of 64-bit values and malformed bodies.
const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/otlp/${name}.json`, import.meta.url), 'utf8'))

const request = (span: Record<string, unknown>, resource: Record<string, unknown> = {}) => ({
  resourceSpans: [{ resource, scopeSpans: [{ scope: { name: 's', version: '1' }, spans: [span] }] }],
})
const ids = { traceId: '5eade0fb39516216da3a12d943e0eba0', spanId: 'f5eb312dea9ca968' }

/** A request through both decoders, which must agree. */
function decodeBoth(json: unknown) {
  const fromJson = decodeOtlpJson(json)
  expect(decodeOtlpProtobuf(encodeOtlpJsonAsProtobuf(json))).toEqual(fromJson)
  return fromJson
}

describe('OTLP request decoding (protobuf and JSON)', () => {
  it.each([
    ['livekit-1.x-conversation', 53, 'livekit-agents'],
    ['pipecat-conversation', 18, 'pipecat.turn'],
  ])('decodes %s the same from protobuf and JSON', (name, spans, scope) => {
    const decoded = decodeBoth(fixture(name))
    expect(decoded).toHaveLength(1)
    expect(decoded[0]!.spans).toHaveLength(spans)
    expect(decoded[0]!.spans.map((span) => span.scope_name)).toContain(scope)
    expect(
      decoded[0]!.resource_attributes.find((a) => a.key === 'telemetry.sdk.language')?.string_value,
    ).toBe('python')
  })

  it('keeps ids as lowercase hex, times as exact microseconds, status and events', () => {
    const [resource] = decodeBoth(
      request({
        ...ids,
        traceId: ids.traceId.toUpperCase(),
        parentSpanId: '8fd85f997ae07393',
        name: 'agent_turn',
        kind: 1,
        startTimeUnixNano: '1795834346590599788',
        endTimeUnixNano: '1795834370353687999',
        status: { code: 2, message: 'tool failed' },
        events: [{ name: 'exception', timeUnixNano: '1795834346590600999', attributes: [] }],
      }),
    )
    expect(resource!.spans[0]).toEqual({
      trace_id: ids.traceId,
      span_id: ids.spanId,
      parent_span_id: '8fd85f997ae07393',
      name: 'agent_turn',
      kind: 1,
      start_time_us: 1795834346590599,
      end_time_us: 1795834370353687,
      status_code: 2,
      status_message: 'tool failed',
      scope_name: 's',
      scope_version: '1',
      attributes: [],
      events: [{ name: 'exception', time_us: 1795834346590600, attributes: [] }],
    })
  })

  it('types attribute values: an integer beyond Avro exactly in json_value, arrays and maps as OTLP JSON', () => {
    const [resource] = decodeBoth(
      request({
        ...ids,
        attributes: [
          { key: 's', value: { stringValue: 'text' } },
          { key: 'b', value: { boolValue: true } },
          { key: 'i', value: { intValue: '-42' } },
          { key: 'big', value: { intValue: '9223372036854775807' } },
          { key: 'd', value: { doubleValue: 0.25 } },
          { key: 'nan', value: { doubleValue: 'NaN' } },
          { key: 'a', value: { arrayValue: { values: [{ stringValue: 'x' }, { intValue: '7' }] } } },
          { key: 'm', value: { kvlistValue: { values: [{ key: 'k', value: { boolValue: false } }] } } },
          { key: 'bytes', value: { bytesValue: 'AAEC' } },
          { key: 'empty', value: {} },
        ],
      }),
    )
    const values = Object.fromEntries(
      resource!.spans[0]!.attributes.map(({ key, ...value }) => [
        key,
        Object.values(value).find((item) => item !== null),
      ]),
    )
    expect(values).toEqual({
      s: 'text',
      b: true,
      i: -42,
      big: '{"intValue":"9223372036854775807"}',
      d: 0.25,
      nan: Number.NaN,
      a: '{"arrayValue":{"values":[{"stringValue":"x"},{"intValue":"7"}]}}',
      m: '{"kvlistValue":{"values":[{"key":"k","value":{"boolValue":false}}]}}',
      bytes: '{"bytesValue":"AAEC"}',
    })
  })

  it('reads an integral double sent as intValue (the JS SDK) as an int, and numbers where strings belong', () => {
    const [resource] = decodeOtlpJson(
      request({ ...ids, startTimeUnixNano: 1500, attributes: [{ key: 'c', value: { intValue: 0 } }] }),
    )
    expect(resource!.spans[0]!.start_time_us).toBe(1)
    expect(resource!.spans[0]!.attributes[0]!.int_value).toBe(0)
  })

  it('gives an empty request (no resource spans) as nothing to store', () => {
    expect(decodeOtlpProtobuf(Buffer.alloc(0))).toEqual([])
    expect(decodeOtlpJson({})).toEqual([])
  })

  it('refuses protobuf bytes that are not a request', () => {
    const body = encodeOtlpJsonAsProtobuf(fixture('pipecat-conversation'))
    expect(() => decodeOtlpProtobuf(body.subarray(0, body.length - 7))).toThrow(OtlpDecodeError)
    expect(() => decodeOtlpProtobuf(Buffer.from('{"resourceSpans":[]}'))).toThrow(OtlpDecodeError)
    expect(() => decodeOtlpProtobuf(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]))).toThrow(
      OtlpDecodeError,
    )
  })

  it('refuses JSON of the wrong structure, naming where', () => {
    expect(() => decodeOtlpJson([])).toThrow(OtlpDecodeError)
    expect(() => decodeOtlpJson({ resourceSpans: {} })).toThrow('resourceSpans must be an array')
    expect(() => decodeOtlpJson(request({ ...ids, startTimeUnixNano: 'soon' }))).toThrow(
      'resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano must be',
    )
    expect(() =>
      decodeOtlpJson(request({ ...ids, attributes: [{ key: 'i', value: { intValue: '1.5' } }] })),
    ).toThrow('attributes[0].value.intValue must be an integer')
  })

  it('skips fields it does not use, whatever their wire type (links, flags, trace state)', () => {
    const message = exportTraceServiceRequest.fromObject({
      resourceSpans: [
        {
          schemaUrl: 'https://opentelemetry.io/schemas/1.30.0',
          scopeSpans: [
            {
              spans: [
                {
                  traceId: Buffer.from(ids.traceId, 'hex'),
                  spanId: Buffer.from(ids.spanId, 'hex'),
                  traceState: 'a=b',
                  flags: 257,
                  droppedAttributesCount: 3,
                  links: [{ traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 2) }],
                  name: 'x',
                },
              ],
            },
          ],
        },
      ],
    })
    const [resource] = decodeOtlpProtobuf(Buffer.from(exportTraceServiceRequest.encode(message).finish()))
    expect(resource!.spans[0]).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId, name: 'x' })
  })
})
