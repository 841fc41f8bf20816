import { describe, expect, it } from 'vitest'
import { parseWebhookSecrets, webhookSecretMatcher } from './webhook-secrets.ts'

const prod = 'prod-secret-0123456789'
const staging = 'staging-secret-0123456789'

describe('parseWebhookSecrets', () => {
  it('reads several source=secret pairs, tolerating spaces and empty entries', () => {
    expect(parseWebhookSecrets(` prod=${prod} , staging=${staging},`)).toEqual([
      { source: 'prod', secret: prod },
      { source: 'staging', secret: staging },
    ])
  })
  it('keeps = signs inside a secret', () => {
    expect(parseWebhookSecrets('prod=abc=def=ghi=jkl=mno')).toEqual([
      { source: 'prod', secret: 'abc=def=ghi=jkl=mno' },
    ])
  })
  it('gives nothing for an empty setting', () => {
    expect(parseWebhookSecrets('')).toEqual([])
  })
  it.each([
    ['no equals sign', 'prodsecret-0123456789'],
    ['no source name', `=${prod}`],
    ['no secret', 'prod='],
    ['a source name with spaces', `my prod=${prod}`],
  ])('rejects an entry with %s, naming its position but not its secret', (_, text) => {
    expect(() => parseWebhookSecrets(`ok=${staging},${text}`)).toThrow(/WEBHOOK_SECRETS entry 2/)
    try {
      parseWebhookSecrets(`ok=${staging},${text}`)
    } catch (error) {
      expect(String(error)).not.toContain(prod)
      expect(String(error)).not.toContain(staging)
    }
  })
  it('rejects secrets shorter than 16 characters', () => {
    expect(() => parseWebhookSecrets('prod=short')).toThrow(/at least 16 characters/)
  })
})

describe('webhookSecretMatcher', () => {
  const match = webhookSecretMatcher(parseWebhookSecrets(`prod=${prod},staging=${staging}`))
  it('names the source of the matching secret', () => {
    expect(match(prod)).toBe('prod')
    expect(match(staging)).toBe('staging')
  })
  it('matches nothing for a wrong, truncated, extended or missing token', () => {
    expect(match('wrong')).toBeNull()
    expect(match(prod.slice(0, -1))).toBeNull()
    expect(match(`${prod}x`)).toBeNull()
    expect(match('')).toBeNull()
    expect(match(undefined)).toBeNull()
  })
})
