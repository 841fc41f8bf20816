import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { validateConversationComplete } from '../event/event-validation.ts'
import { keepEverything, type PiiPolicy } from './pii-policy.ts'
import { hashPhone, maskText, redactWebhookBody } from './pii-redaction.ts'

const key = 'a-test-hmac-key-of-32-characters!'
const policy = (changes: Partial<PiiPolicy>): PiiPolicy => ({ ...keepEverything, ...changes })

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

  it('never changes its input', () => {
    const input = body()
    redactWebhookBody(input, { phone: 'hmac', content: 'mask', audio_url: 'drop', tools: 'drop' }, key)
    expect(input).toEqual(body())
  })

  it('keeps a redacted conversation valid against the schema', () => {
    const out = redactWebhookBody(
      body(),
      { phone: 'hmac', content: 'mask', audio_url: 'drop', tools: 'drop' },
      key,
    )
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
