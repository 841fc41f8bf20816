import { describe, expect, it } from 'vitest'
import {
  describePiiPolicy,
  keepEverything,
  keepsEverything,
  needsHmacKey,
  parsePiiPolicy,
} from './pii-policy.ts'

describe('PII_POLICY parsing', () => {
  it('is empty for an empty setting: every source keeps everything', () => {
    expect(parsePiiPolicy('')).toEqual(new Map())
    expect(parsePiiPolicy(' ; ')).toEqual(new Map())
  })

  it('reads one policy per source, unnamed fields kept', () => {
    const policies = parsePiiPolicy(
      'prod:phone=hmac,content=mask ; staging:content=drop,audio_url=drop,tools=drop;dev-1:phone=drop',
    )
    const rest = { errors: 'keep', url_parameters: 'keep', unknown_fields: 'keep', test_reasons: 'keep' }
    expect(policies.get('prod')).toEqual({
      phone: 'hmac',
      content: 'mask',
      audio_url: 'keep',
      tools: 'keep',
      ...rest,
    })
    expect(policies.get('staging')).toEqual({
      phone: 'keep',
      content: 'drop',
      audio_url: 'drop',
      tools: 'drop',
      ...rest,
    })
    expect(policies.get('dev-1')).toEqual({ ...keepEverything, phone: 'drop' })
  })

  it('reads the knobs of the other free text, the URL parameters and unknown fields', () => {
    expect(parsePiiPolicy('prod:errors=mask,url_parameters=drop,unknown_fields=drop').get('prod')).toEqual({
      ...keepEverything,
      errors: 'mask',
      url_parameters: 'drop',
      unknown_fields: 'drop',
    })
    expect(parsePiiPolicy('prod:url_parameters=mask').get('prod')?.url_parameters).toBe('mask')
    // An error message is never dropped: a call with an error must still count as one.
    expect(() => parsePiiPolicy('prod:errors=drop')).toThrow(/errors must be one of keep, mask/)
    expect(() => parsePiiPolicy('prod:unknown_fields=mask')).toThrow(
      /unknown_fields must be one of keep, drop/,
    )
  })

  it("reads the test judge's reasons knob: keep, mask or drop", () => {
    expect(parsePiiPolicy('prod:test_reasons=mask').get('prod')).toEqual({
      ...keepEverything,
      test_reasons: 'mask',
    })
    expect(parsePiiPolicy('prod:test_reasons=drop').get('prod')?.test_reasons).toBe('drop')
    expect(() => parsePiiPolicy('prod:test_reasons=hmac')).toThrow(
      /test_reasons must be one of keep, mask, drop/,
    )
  })

  it('accepts a source with every field kept (explicitly or by an empty list)', () => {
    const policies = parsePiiPolicy('prod:phone=keep;staging:')
    expect(keepsEverything(policies.get('prod')!)).toBe(true)
    expect(keepsEverything(policies.get('staging')!)).toBe(true)
  })

  it.each([
    ['prod', /PII_POLICY entry 1 must look like source:field=mode/],
    [':phone=drop', /PII_POLICY entry 1 must look like source:field=mode/],
    [' :phone=drop', /PII_POLICY entry 1 must look like/],
    [
      'prod:phone=drop;staging:email=drop',
      /PII_POLICY entry 2 \(staging\): unknown field "email"; the fields are phone, content, audio_url, tools/,
    ],
    [
      'prod:phone=mask',
      /PII_POLICY entry 1 \(prod\): phone must be one of keep, hmac, drop, got "phone=mask"/,
    ],
    ['prod:content=hmac', /content must be one of keep, mask, drop/],
    ['prod:audio_url=mask', /audio_url must be one of keep, drop/],
    ['prod:tools', /tools must be one of keep, drop, got "tools"/],
    ['prod:tools=drop=x', /tools must be one of keep, drop/],
    ['prod:phone=drop,phone=keep', /PII_POLICY entry 1 \(prod\): phone is set twice/],
    ['prod:phone=drop;prod:content=drop', /PII_POLICY entry 2: source "prod" is named twice/],
  ])('refuses %j with an error naming the variable', (text, message) => {
    expect(() => parsePiiPolicy(text)).toThrow(message)
  })

  it('describes a policy for the va-pii-policy header, every field spelt out', () => {
    expect(describePiiPolicy(parsePiiPolicy('prod:content=mask,phone=hmac').get('prod')!)).toBe(
      'phone=hmac,content=mask,audio_url=keep,tools=keep,errors=keep,url_parameters=keep,unknown_fields=keep,test_reasons=keep',
    )
  })

  it('needs the HMAC key only when a source hashes phone numbers', () => {
    expect(needsHmacKey(parsePiiPolicy('prod:phone=drop,content=mask'))).toBe(false)
    expect(needsHmacKey(parsePiiPolicy('prod:phone=drop;staging:phone=hmac'))).toBe(true)
  })
})
