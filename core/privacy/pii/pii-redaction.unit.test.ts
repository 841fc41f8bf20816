import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { validateConversationComplete } from '../../event/event-validation.ts'
import { keepEverything, type PiiPolicy } from './pii-policy.ts'
import { hashPhone, maskText, redactWebhookBody } from './pii-redaction.ts'

const key = 'a-test-hmac-key-of-32-characters!'
const policy = (changes: Partial<PiiPolicy>): PiiPolicy => ({ ...keepEverything, ...changes })
/** Every knob at its strictest. */
const strictest: PiiPolicy = {
  phone: 'hmac',
  content: 'mask',
  audio_url: 'drop',
  tools: 'drop',
  errors: 'mask',
  url_parameters: 'mask',
  unknown_fields: 'drop',
  test_reasons: 'mask',
}

function body() {
  return {
    event: 'ConversationComplete',
    data: {
      session_id: '5b1e8a8e-8a3c-4b51-9d0e-3e8f2a8b9c01',
      from_number: '+1 415 555 0100',
      to_number: '+14155550199',
      audio_url: 'https://recordings.example.com/r/123.ogg',
      agent_name: 'support',
      history: [
        { role: 'user', content: 'call me at +1 415 555 0100 or mail a@b.com', kind: 'message' },
        {
          kind: 'function_call',
          tool_name: 'lookup',
          tool_arguments_json: '{"card":"4111 1111 1111 1111"}',
          tool_output: 'found a@b.com',
        },
      ],
    },
  }
}

/** A body with the other free-text fields and unknown fields on every record. */
function wideBody() {
  const wide = body() as ReturnType<typeof body> &
    Record<string, unknown> & {
      data: Record<string, unknown>
    }
  wide.surprise = 'envelope +1 415 555 0100'
  Object.assign(wide.data, {
    error_message: 'SIP 486 calling +1 415 555 0100',
    room_metadata: { failed: true, error: 'dial +14155550199 failed', caller: 'Jane' },
    url_parameters: { phone: '+14155550100', email: 'a@b.com', lang: 'en' },
    test_eval_result: { success: false, reasons: ['no greeting'], judge_notes: 'a@b.com' },
    customer_name: 'Jane Doe',
  })
  Object.assign(wide.data.history[0]!, {
    instructions: 'The caller is Jane, +1 415 555 0100',
    sentiment: 'Jane sounds upset',
    metrics: { e2e_latency: 0.8, speaker: 'Jane' },
  })
  return wide
}

describe('masking transcript text', () => {
  it('masks the digits of a phone number', () => {
    expect(maskText('call me at +1 415 555 0100')).toBe('call me at +# ### ### ####')
  })
  it('masks an e-mail address whole', () => {
    expect(maskText('a@b.com')).toBe('[email]')
    expect(maskText('write to first.last+tag@mail.example.co.uk today')).toBe('write to [email] today')
  })
  it('masks card-like numbers, grouped or not', () => {
    expect(maskText('4111 1111 1111 1111')).toBe('[card]')
    expect(maskText('card 4111-1111-1111-1111, exp 12/27')).toBe('card [card], exp ##/##')
    expect(maskText('4111111111111111')).toBe('[card]')
  })
  it('leaves text without digits or addresses as it is', () => {
    expect(maskText('Hello, how can I help?')).toBe('Hello, how can I help?')
  })
})

describe('hashing phone numbers', () => {
  it('is a keyed HMAC-SHA256 in hex, equal for equal numbers whatever their formatting', () => {
    const expected = createHmac('sha256', key).update('+14155550100').digest('hex')
    expect(hashPhone('+14155550100', key)).toBe(`hmac:${expected}`)
    expect(hashPhone('+1 (415) 555-0100', key)).toBe(`hmac:${expected}`)
    expect(hashPhone('+14155550100', `${key}x`)).not.toBe(`hmac:${expected}`)
    expect(hashPhone('+14155550101', key)).not.toBe(`hmac:${expected}`)
  })
})

describe('redacting a webhook body per field and mode', () => {
  it('keeps everything under the keep-everything policy', () => {
    expect(redactWebhookBody(body(), keepEverything, undefined)).toEqual(body())
  })

  it('phone=hmac hashes from_number and to_number and nothing else', () => {
    const out = redactWebhookBody(body(), policy({ phone: 'hmac' }), key) as ReturnType<typeof body>
    expect(out.data.from_number).toBe(hashPhone('+14155550100', key))
    expect(out.data.to_number).toBe(hashPhone('+14155550199', key))
    expect({ ...out.data, from_number: undefined, to_number: undefined }).toEqual({
      ...body().data,
      from_number: undefined,
      to_number: undefined,
    })
  })

  it('phone=hmac without a key refuses rather than keeping the number', () => {
    expect(() => redactWebhookBody(body(), policy({ phone: 'hmac' }), undefined)).toThrow('PII_HMAC_KEY')
  })

  it('phone=drop removes both numbers', () => {
    const out = redactWebhookBody(body(), policy({ phone: 'drop' }), undefined) as { data: object }
    expect(out.data).not.toHaveProperty('from_number')
    expect(out.data).not.toHaveProperty('to_number')
    expect(out.data).toHaveProperty('audio_url')
  })

  it('content=mask masks each transcript line; content=drop removes it', () => {
    const masked = redactWebhookBody(body(), policy({ content: 'mask' }), undefined) as ReturnType<
      typeof body
    >
    expect(masked.data.history[0]!.content).toBe('call me at +# ### ### #### or mail [email]')
    expect(masked.data.history[1]).toEqual(body().data.history[1])
    expect(masked.data.from_number).toBe('+1 415 555 0100')
    const dropped = redactWebhookBody(body(), policy({ content: 'drop' }), undefined) as ReturnType<
      typeof body
    >
    expect(dropped.data.history[0]).toEqual({ role: 'user', kind: 'message' })
  })

  it('audio_url=drop removes the recording link', () => {
    const out = redactWebhookBody(body(), policy({ audio_url: 'drop' }), undefined) as { data: object }
    expect(out.data).not.toHaveProperty('audio_url')
    expect(out.data).toHaveProperty('from_number')
  })

  it('tools=drop removes tool arguments and outputs, keeping the tool name', () => {
    const out = redactWebhookBody(body(), policy({ tools: 'drop' }), undefined) as ReturnType<typeof body>
    expect(out.data.history[1]).toEqual({ kind: 'function_call', tool_name: 'lookup' })
    expect(out.data.history[0]).toEqual(body().data.history[0])
  })

  it('content=mask and content=drop treat the agent instructions as the transcript', () => {
    type Wide = ReturnType<typeof wideBody>
    const masked = redactWebhookBody(wideBody(), policy({ content: 'mask' }), undefined) as Wide
    expect(masked.data.history[0]).toMatchObject({ instructions: 'The caller is Jane, +# ### ### ####' })
    const dropped = redactWebhookBody(wideBody(), policy({ content: 'drop' }), undefined) as Wide
    expect(dropped.data.history[0]).not.toHaveProperty('instructions')
    const kept = redactWebhookBody(wideBody(), policy({ tools: 'drop' }), undefined) as Wide
    expect(kept.data.history[0]).toMatchObject({ instructions: 'The caller is Jane, +1 415 555 0100' })
  })

  it('errors=mask masks error_message and room_metadata.error, keeping them (an error stays an error)', () => {
    const out = redactWebhookBody(wideBody(), policy({ errors: 'mask' }), undefined) as {
      data: Record<string, unknown>
    }
    expect(out.data.error_message).toBe('SIP ### calling +# ### ### ####')
    expect(out.data.room_metadata).toEqual({
      failed: true,
      error: 'dial +########### failed',
      caller: 'Jane',
    })
    const kept = redactWebhookBody(wideBody(), policy({ phone: 'drop' }), undefined) as {
      data: Record<string, unknown>
    }
    expect(kept.data.error_message).toBe(wideBody().data.error_message)
    expect(kept.data.room_metadata).toEqual(wideBody().data.room_metadata)
  })

  it('url_parameters=mask masks every value and keeps the keys; drop removes the map; keep leaves it', () => {
    const of = (mode: PiiPolicy['url_parameters']) =>
      (
        redactWebhookBody(wideBody(), policy({ url_parameters: mode }), undefined) as {
          data: Record<string, unknown>
        }
      ).data
    expect(of('mask').url_parameters).toEqual({ phone: '+###########', email: '[email]', lang: 'en' })
    expect(of('drop')).not.toHaveProperty('url_parameters')
    expect(of('drop')).toHaveProperty('error_message')
    expect(of('keep').url_parameters).toEqual(wideBody().data.url_parameters)
  })

  it('unknown_fields=drop removes every field the schema does not know, on every record, and keeps the rest', () => {
    const out = redactWebhookBody(wideBody(), policy({ unknown_fields: 'drop' }), undefined)
    const expected = body() as Record<string, unknown> & ReturnType<typeof body>
    Object.assign(expected.data, {
      error_message: 'SIP 486 calling +1 415 555 0100',
      room_metadata: { failed: true, error: 'dial +14155550199 failed' },
      url_parameters: { phone: '+14155550100', email: 'a@b.com', lang: 'en' }, // a map: its keys are values
      test_eval_result: { success: false, reasons: ['no greeting'] },
    })
    Object.assign(expected.data.history[0]!, {
      instructions: 'The caller is Jane, +1 415 555 0100',
      metrics: { e2e_latency: 0.8 },
    })
    expect(out).toEqual(expected)
    expect(JSON.stringify(out)).not.toMatch(/Jane Doe|surprise|sentiment|speaker|judge_notes|"caller"/)
    expect(redactWebhookBody(wideBody(), policy({ content: 'drop' }), undefined)).toHaveProperty('surprise')
  })

  it("test_reasons=mask masks each of the judge's reasons; drop removes them; the verdict stays either way", () => {
    const judged = () => ({
      data: {
        session_id: 's',
        test_eval_result: {
          success: false,
          reasons: ['did not confirm +1 415 555 0100', 'mailed a@b.com', 7],
          completion_reason: 'StepsExhausted',
        },
      },
    })
    const of = (mode: PiiPolicy['test_reasons']) =>
      (redactWebhookBody(judged(), policy({ test_reasons: mode }), undefined) as ReturnType<typeof judged>)
        .data.test_eval_result
    expect(of('mask')).toEqual({
      success: false,
      reasons: ['did not confirm +# ### ### ####', 'mailed [email]'], // a non-string cannot be masked: dropped
      completion_reason: 'StepsExhausted',
    })
    expect(of('drop')).toEqual({ success: false, completion_reason: 'StepsExhausted' })
    expect(of('keep')).toEqual(judged().data.test_eval_result)
    // Reasons that are not a list are a misfit bound for quarantine: nothing in them can be trusted.
    const misfit = {
      data: { session_id: 's', test_eval_result: { success: true, reasons: 'call +1 415 555 0100' } },
    }
    expect(redactWebhookBody(misfit, policy({ test_reasons: 'mask' }), undefined)).toEqual({
      data: { session_id: 's', test_eval_result: { success: true } },
    })
    const notObject = { data: { session_id: 's', test_eval_result: 'failed: caller +1 415 555 0100' } }
    expect(redactWebhookBody(notObject, policy({ test_reasons: 'drop' }), undefined)).toEqual({
      data: { session_id: 's' },
    })
  })

  it('never changes its input', () => {
    const input = body()
    redactWebhookBody(input, strictest, key)
    expect(input).toEqual(body())
    const wide = wideBody()
    redactWebhookBody(wide, strictest, key)
    expect(wide).toEqual(wideBody())
  })

  it('keeps a redacted conversation valid against the schema', () => {
    const out = redactWebhookBody(wideBody(), strictest, key)
    expect(validateConversationComplete(out)).toEqual([])
  })

  it('drops values of an unexpected type it cannot mask or hash (misfits bound for quarantine)', () => {
    const misfit = {
      event: 'ConversationComplete',
      data: {
        session_id: 's',
        from_number: 14155550100,
        history: [{ content: { said: '4111 1111 1111 1111' } }, 7],
      },
    }
    const out = redactWebhookBody(misfit, policy({ phone: 'hmac', content: 'mask' }), key)
    expect(out).toEqual({ event: 'ConversationComplete', data: { session_id: 's', history: [{}, 7] } })
    const notArray = { data: { session_id: 's', history: { content: 'a@b.com' } } }
    expect(redactWebhookBody(notArray, policy({ content: 'mask' }), key)).toEqual({
      data: { session_id: 's' },
    })
  })

  it('returns a body without a data object as it is (the ingress refuses it anyway)', () => {
    expect(redactWebhookBody([1], policy({ phone: 'drop' }), undefined)).toEqual([1])
    expect(redactWebhookBody({ data: 'x' }, policy({ phone: 'drop' }), undefined)).toEqual({ data: 'x' })
  })
})
