import { describe, expect, it } from 'vitest'
import { ingressWebhookUrl } from './ingress-url.ts'
import { describeErrorBody } from './platform-errors.ts'
import { webhookIdOf, webhookRequestBody } from './webhook-request.ts'

describe('webhookRequestBody', () => {
  it('sends url; --body-json adds and overrides, --field overrides both', () => {
    expect(
      webhookRequestBody(
        'https://in.example.com/hook',
        ['name=prod ingress', 'enabled=yes'],
        '{"enabled":true,"url":"https://other"}',
      ),
    ).toEqual({ url: 'https://other', enabled: 'yes', name: 'prod ingress' })
    expect(webhookRequestBody('https://in.example.com/hook', ['note=a=b'])).toEqual({
      url: 'https://in.example.com/hook',
      note: 'a=b',
    })
  })

  it('refuses malformed fields and bodies', () => {
    expect(() => webhookRequestBody('u', ['novalue'])).toThrow('--field "novalue" must look like key=value')
    expect(() => webhookRequestBody('u', ['=x'])).toThrow(/must look like key=value/)
    expect(() => webhookRequestBody('u', [], '{')).toThrow(/--body-json is not valid JSON/)
    expect(() => webhookRequestBody('u', [], '[1]')).toThrow('--body-json must be a JSON object')
  })

  it('takes the id from the answer, or says there is none', () => {
    expect(webhookIdOf({ id: 'abc' })).toBe('abc')
    expect(() => webhookIdOf({})).toThrow(/without a webhook id/)
    expect(() => webhookIdOf(undefined)).toThrow(/without a webhook id/)
  })
})

describe('ingressWebhookUrl', () => {
  const secrets = 'prod=0123456789abcdef-prod,staging=0123456789abcdef-stag'

  it('adds the contract path to a bare origin and the source token from WEBHOOK_SECRETS', () => {
    expect(ingressWebhookUrl('https://in.example.com')).toBe(
      'https://in.example.com/webhooks/conversation-complete',
    )
    expect(
      ingressWebhookUrl('https://in.example.com/custom/path', { webhookSecrets: secrets, source: 'staging' }),
    ).toBe('https://in.example.com/custom/path?token=0123456789abcdef-stag')
  })

  it('names a missing source without printing any secret', () => {
    const attempt = () =>
      ingressWebhookUrl('https://in.example.com', { webhookSecrets: secrets, source: 'dev' })
    expect(attempt).toThrow('WEBHOOK_SECRETS has no source "dev" (it has: prod, staging)')
    expect(() => ingressWebhookUrl('https://in.example.com', { source: 'dev' })).toThrow(/\(it is empty\)/)
    expect(() =>
      ingressWebhookUrl('https://x/?token=a', { webhookSecrets: secrets, source: 'prod' }),
    ).toThrow(/already has a token/)
    expect(() => ingressWebhookUrl('nope')).toThrow('--url "nope" is not a URL')
  })
})

describe('describeErrorBody', () => {
  it.each([
    [
      '{"error":"invalid_request","error_description":"url is required"}',
      'application/json',
      'invalid_request: url is required',
    ],
    [
      '{"title":"Bad Request","detail":"url must be https"}',
      'application/problem+json',
      'Bad Request: url must be https',
    ],
    ['{"code":"E42","message":"no"}', 'application/json', 'E42: no'],
    ['<html><body><h1>Forbidden</h1></body></html>', 'text/html', 'Forbidden'],
    ['', 'text/plain', undefined],
  ])('reads %s', (text, type, expected) => {
    expect(describeErrorBody(text, type)).toBe(expected)
  })
})
