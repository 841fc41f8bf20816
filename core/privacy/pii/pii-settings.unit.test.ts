import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../settings/env.ts'
import { piiRedactions } from './pii-settings.ts'

const key = 'k'.repeat(32)

describe('PII settings against the webhook sources', () => {
  it('reads PII_POLICY and PII_HMAC_KEY from the environment (both optional)', () => {
    const config = loadConfig({ PII_POLICY: 'prod:phone=hmac', PII_HMAC_KEY: key })
    expect(config.PII_POLICY).toBe('prod:phone=hmac')
    expect(config.PII_HMAC_KEY).toBe(key)
    const defaults = loadConfig({})
    expect(defaults.PII_POLICY).toBe('')
    expect(defaults.PII_HMAC_KEY).toBeUndefined()
  })

  it('gives nothing to do for a source that keeps everything, named or not', () => {
    const redaction = piiRedactions({ PII_POLICY: 'prod:phone=keep' }, ['prod', 'staging'])
    expect(redaction('prod')).toBeUndefined()
    expect(redaction('staging')).toBeUndefined()
  })

  it('gives a redaction and its header for a source that removes something', () => {
    const redaction = piiRedactions({ PII_POLICY: 'staging:content=drop' }, ['prod', 'staging'])
    expect(redaction('prod')).toBeUndefined()
    const staging = redaction('staging')!
    expect(staging.header).toBe(
      'phone=keep,content=drop,audio_url=keep,tools=keep,errors=keep,url_parameters=keep,unknown_fields=keep,test_reasons=keep',
    )
    expect(staging.redact({ event: 'x', data: { history: [{ content: 'hi' }] } })).toEqual({
      event: 'x',
      data: { history: [{}] },
    })
  })

  it('refuses a policy for a source WEBHOOK_SECRETS does not have (a typo would keep PII)', () => {
    expect(() => piiRedactions({ PII_POLICY: 'prd:phone=drop' }, ['prod'])).toThrow(
      'PII_POLICY names source "prd", which WEBHOOK_SECRETS does not have (its sources: prod)',
    )
    expect(() => piiRedactions({ PII_POLICY: 'pr od:phone=drop' }, ['prod'])).toThrow(
      'PII_POLICY names source "pr od"',
    )
  })

  it('requires PII_HMAC_KEY, long enough, when a source hashes, and never says the key', () => {
    expect(() => piiRedactions({ PII_POLICY: 'prod:phone=hmac' }, ['prod'])).toThrow(
      'PII_HMAC_KEY must be set: PII_POLICY hashes phone numbers (phone=hmac)',
    )
    const short = 'short-secret-value'
    let message = ''
    try {
      piiRedactions({ PII_POLICY: 'prod:phone=hmac', PII_HMAC_KEY: short }, ['prod'])
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toBe(`PII_HMAC_KEY must have at least 32 characters (it has ${short.length})`)
    expect(message).not.toContain(short)
    expect(
      piiRedactions({ PII_POLICY: 'prod:phone=hmac', PII_HMAC_KEY: key }, ['prod'])('prod')?.header,
    ).toBe(
      'phone=hmac,content=keep,audio_url=keep,tools=keep,errors=keep,url_parameters=keep,unknown_fields=keep,test_reasons=keep',
    )
  })
})
