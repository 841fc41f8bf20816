import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { encodeOtlpJsonAsProtobuf } from '../../test/support/otlp-proto-types.ts'
import { attributeMap, plainAttributeValue, stringListAttribute } from './otlp-attributes.ts'
import { decodeOtlpJson } from './otlp-json-decoding.ts'
import { decodeOtlpProtobuf } from './otlp-protobuf-decoding.ts'
import type { OtlpAttribute } from './otlp-spans.ts'

// The assembler's attribute readers read json_value exactly as the receiver writes it: the whole
// OTLP JSON AnyValue (`{"arrayValue":{"values":[…]}}`), from a protobuf body and a JSON body alike.
const livekit = JSON.parse(
  readFileSync(new URL('../../test/fixtures/otlp/livekit-1.x-conversation.json', import.meta.url), 'utf8'),
)
const request = {
  resourceSpans: [
    {
      resource: { attributes: [] },
      scopeSpans: [
        {
          spans: [
            {
              traceId: '5b8efff798038103d269b633813fc60c',
              spanId: 'eee19b7ec3c1b174',
              name: 'conversation',
              startTimeUnixNano: '1795834646165476381',
              endTimeUnixNano: '1795834669871476381',
              attributes: [
                {
                  key: 'call.tags',
                  value: { arrayValue: { values: [{ stringValue: 'vip' }, { stringValue: 'callback' }] } },
                },
                {
                  key: 'call.limits',
                  value: {
                    kvlistValue: {
                      values: [
                        { key: 'max_turns', value: { intValue: '40' } },
                        { key: 'ratio', value: { doubleValue: 0.5 } },
                        { key: 'ids', value: { arrayValue: { values: [{ intValue: '9007199254740993' }] } } },
                      ],
                    },
                  },
                },
                { key: 'call.blob', value: { bytesValue: 'AAEC' } },
                { key: 'call.sequence', value: { intValue: '9007199254740993' } },
                { key: 'call.direction', value: { stringValue: 'inbound' } },
              ],
            },
          ],
        },
      ],
    },
  ],
}

const decoders = {
  protobuf: (body: unknown) => decodeOtlpProtobuf(encodeOtlpJsonAsProtobuf(body)),
  json: (body: unknown) => decodeOtlpJson(body),
}

describe.each(Object.entries(decoders))('attribute readers on what the %s decoder writes', (_, decode) => {
  const attributesOf = (body: unknown, name: string): OtlpAttribute[] =>
    decode(body)
      .flatMap((resource) => resource.spans)
      .find((span) => span.name === name)!.attributes

  it("reads LiveKit's lk.function_tools (a string array) as its tool names, an empty array as none", () => {
    const map = attributeMap(attributesOf(livekit, 'llm_node'))
    expect(map.get('lk.function_tools')?.json_value).toBe(
      '{"arrayValue":{"values":[{"stringValue":"get_weather"}]}}',
    )
    expect(stringListAttribute(map, 'lk.function_tools')).toEqual(['get_weather'])
    expect(stringListAttribute(map, 'lk.provider_tools')).toEqual([])
    expect(stringListAttribute(map, 'lk.not_there')).toBeNull()
  })

  it('turns arrays, key-value lists, bytes and big integers into plain JSON values', () => {
    const map = attributeMap(attributesOf(request, 'conversation'))
    const plain = (key: string) => plainAttributeValue(map.get(key)!)
    expect(plain('call.tags')).toEqual(['vip', 'callback'])
    expect(plain('call.limits')).toEqual({ max_turns: 40, ratio: 0.5, ids: ['9007199254740993'] })
    expect(plain('call.blob')).toBe('AAEC')
    expect(plain('call.sequence')).toBe('9007199254740993')
    expect(plain('call.direction')).toBe('inbound')
  })
})
