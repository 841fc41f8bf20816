import { describe, expect, it } from 'vitest'
import { emptyAttribute } from '../../otlp/otlp-decoded-request.ts'
import type { OtlpAttribute, OtlpSpans } from '../../otlp/otlp-spans.ts'
import { otlpRedactor } from './otlp-attribute-redaction.ts'
import { keepEverything, type PiiPolicy } from './pii-policy.ts'
import { hashPhone } from './pii-redaction.ts'

// Each rule of the PII policy on span attributes (docs/otlp.md §3.7, §4.6), on LiveKit's and
// Pipecat's own keys.
const key = 'a-test-hmac-key-of-32-characters!'
const policy = (changes: Partial<PiiPolicy>): PiiPolicy => ({ ...keepEverything, ...changes })
const text = (name: string, value: string): OtlpAttribute => ({
  ...emptyAttribute(name),
  string_value: value,
})
const said = 'call me at +1 415 555 0100 or mail a@b.com'
const masked = 'call me at +# ### ### #### or mail [email]'

function message(attributes: OtlpAttribute[], extra: Partial<OtlpSpans['spans'][number]> = {}): OtlpSpans {
  return {
    source: 'prod',
    received_at: 1,
    trace_id: 'a'.repeat(32),
    resource_attributes: [text('service.name', 'bot'), text('lk.pii.room_name', 'room-1')],
    spans: [
      {
        span_id: 'b'.repeat(16),
        parent_span_id: null,
        name: 'span',
        kind: 1,
        start_time_us: 1,
        end_time_us: 2,
        status_code: 2,
        status_message: `failed for ${said}`,
        scope_name: null,
        scope_version: null,
        attributes,
        events: [],
        ...extra,
      },
    ],
  }
}

/** The attributes of the first span after redaction, as key → string value (or the kind of value). */
function redactedAttributes(changes: Partial<PiiPolicy>, attributes: OtlpAttribute[], hmacKey?: string) {
  const redacted = otlpRedactor(policy(changes), hmacKey)(message(attributes))
  return Object.fromEntries(
    redacted.spans[0]!.attributes.map((a) => [a.key, a.string_value ?? a.json_value ?? a.int_value]),
  )
}

const livekitText = [
  'lk.pii.user_transcript',
  'lk.pii.user_input',
  'lk.pii.response.text',
  'lk.pii.input_text',
  'lk.pii.instructions',
  'lk.user_transcript',
]
const pipecatText = ['transcript', 'output', 'text', 'gen_ai.system_instructions']
const toolKeys = [
  'lk.pii.function_tool.arguments',
  'lk.pii.function_tool.output',
  'lk.pii.response.function_calls',
  'tool.arguments',
  'tool.result',
  'function_calls.get_weather',
  'gen_ai.tool.call.arguments',
]
const contextKeys = ['lk.pii.chat_ctx', 'input', 'gen_ai.input.messages']
const neutral = [
  text('lk.agent_label', 'weather_agent'),
  { ...emptyAttribute('lk.e2e_latency'), double_value: 0.8 },
]

describe('PII policy on OTLP span attributes', () => {
  it('content=mask masks the text attributes of LiveKit and Pipecat as the webhook masks a transcript', () => {
    const result = redactedAttributes({ content: 'mask' }, [
      ...[...livekitText, ...pipecatText].map((k) => text(k, said)),
      ...neutral,
    ])
    for (const name of [...livekitText, ...pipecatText]) expect(result[name], name).toBe(masked)
    expect(result['lk.agent_label']).toBe('weather_agent')
    expect(Object.keys(result)).toContain('lk.e2e_latency')
  })

  it('content=drop removes them; neutral attributes and numbers stay', () => {
    const redacted = otlpRedactor(
      policy({ content: 'drop' }),
      undefined,
    )(message([...[...livekitText, ...pipecatText].map((k) => text(k, said)), ...neutral]))
    expect(redacted.spans[0]!.attributes).toEqual(neutral)
  })

  it('removes any other key with a `pii` segment unless content is kept (identity, room name, future keys)', () => {
    const attributes = [
      text('lk.pii.participant_identity', 'jane'),
      text('lk.pii.sip.trunk', 'x'),
      text('pii', 'y'),
    ]
    expect(Object.keys(redactedAttributes({ content: 'mask' }, attributes))).toEqual([])
    expect(Object.keys(redactedAttributes({ content: 'keep' }, attributes))).toHaveLength(3)
    // A key merely containing the letters is not marked.
    expect(redactedAttributes({ content: 'drop' }, [text('lk.piix', 'z')])).toEqual({ 'lk.piix': 'z' })
  })

  it('tools=drop removes tool arguments and results, and keeps the tool name and id', () => {
    const result = redactedAttributes({ tools: 'drop' }, [
      ...toolKeys.map((k) => text(k, '{"location":"Tokyo"}')),
      text('lk.function_tool.name', 'get_weather'),
      text('lk.function_tool.id', 'call_1'),
    ])
    expect(result).toEqual({ 'lk.function_tool.name': 'get_weather', 'lk.function_tool.id': 'call_1' })
    // content=mask does not touch tool data (the webhook's tools knob is separate).
    expect(redactedAttributes({ content: 'mask' }, [text('tool.result', said)])).toEqual({
      'tool.result': said,
    })
  })

  it('a whole LLM context (text and tool calls) is removed by either knob, masked by content=mask', () => {
    const attributes = contextKeys.map((k) => text(k, said))
    expect(redactedAttributes({ tools: 'drop' }, attributes)).toEqual({})
    expect(redactedAttributes({ content: 'drop' }, attributes)).toEqual({})
    expect(redactedAttributes({ content: 'mask' }, attributes)).toEqual(
      Object.fromEntries(contextKeys.map((k) => [k, masked])),
    )
  })

  it('phone=hmac hashes phone-number attributes as the webhook hashes numbers; phone=drop removes them', () => {
    const attributes = [
      text('lk.pii.sip.phoneNumber', '+1 415 555 0100'),
      text('call.from_number', '+14155550199'),
    ]
    expect(redactedAttributes({ phone: 'hmac' }, attributes, key)).toEqual({
      'lk.pii.sip.phoneNumber': hashPhone('+1 415 555 0100', key),
      'call.from_number': hashPhone('+14155550199', key),
    })
    expect(redactedAttributes({ phone: 'drop' }, attributes)).toEqual({})
    // A phone number is not "content": content=drop alone leaves it to the phone knob.
    expect(redactedAttributes({ content: 'drop' }, [text('call.to_number', '+1')])).toEqual({
      'call.to_number': '+1',
    })
    expect(() => otlpRedactor(policy({ phone: 'hmac' }), undefined)).toThrow('PII_HMAC_KEY')
  })

  it('errors=mask masks exception texts and the status message', () => {
    const redacted = otlpRedactor(
      policy({ errors: 'mask' }),
      undefined,
    )(message([text('exception.message', said), text('exception.type', 'ValueError')]))
    expect(redacted.spans[0]!.attributes.map((a) => a.string_value)).toEqual([masked, 'ValueError'])
    expect(redacted.spans[0]!.status_message).toBe(`failed for ${masked}`)
  })

  it("applies to the LLM message events' content and tool calls (LiveKit's llm_request)", () => {
    const events = [
      { name: 'gen_ai.user.message', time_us: 1, attributes: [text('content', said), text('role', 'user')] },
      {
        name: 'gen_ai.tool.message',
        time_us: 2,
        attributes: [text('content', 'sunny'), text('id', 'call_1')],
      },
      {
        name: 'gen_ai.choice',
        time_us: 3,
        attributes: [text('content', said), { ...emptyAttribute('tool_calls'), json_value: '{}' }],
      },
      { name: 'other', time_us: 4, attributes: [text('content', said)] },
    ]
    const redact = (changes: Partial<PiiPolicy>) =>
      otlpRedactor(
        policy(changes),
        undefined,
      )(message([], { events })).spans[0]!.events.map((event) =>
        event.attributes.map((a) => `${a.key}=${a.string_value ?? a.json_value}`),
      )
    expect(redact({ content: 'mask' })).toEqual([
      [`content=${masked}`, 'role=user'],
      ['content=sunny', 'id=call_1'],
      [`content=${masked}`, 'tool_calls={}'],
      [`content=${said}`],
    ])
    expect(redact({ tools: 'drop' })).toEqual([
      [`content=${said}`, 'role=user'],
      ['id=call_1'],
      [`content=${said}`],
      [`content=${said}`],
    ])
  })

  it('applies to resource attributes and removes a value that is not a string under mask', () => {
    const redacted = otlpRedactor(
      policy({ content: 'mask' }),
      undefined,
    )(message([{ ...emptyAttribute('transcript'), json_value: '{"arrayValue":{"values":[]}}' }]))
    expect(redacted.resource_attributes.map((a) => a.key)).toEqual(['service.name'])
    expect(redacted.spans[0]!.attributes).toEqual([])
  })

  it('does not change its input', () => {
    const input = message([text('transcript', said)])
    const copy = structuredClone(input)
    otlpRedactor(policy({ content: 'drop', errors: 'mask' }), undefined)(input)
    expect(input).toEqual(copy)
  })
})
