import { describe, expect, it } from 'vitest'
import { checkIngressTransport, ingressWebhookUrl } from './ingress-url.ts'
import { IngressUrlError } from './platform-errors.ts'

describe('checkIngressTransport', () => {
  it('takes https without --insecure', () => {
    expect(() => checkIngressTransport('https://ingress.example.com/webhooks/x?token=s', false)).not.toThrow()
  })

  it('refuses http:// without --insecure, naming the clear-text token and never the token itself', () => {
    const url = 'http://127.0.0.1:8080/webhooks/conversation-complete?token=s3cret-value'
    expect(() => checkIngressTransport(url, false)).toThrow(IngressUrlError)
    expect(() => checkIngressTransport(url, false)).toThrow(/clear text.*--insecure/)
    expect(() => checkIngressTransport(url, false)).not.toThrow(/s3cret-value/)
  })

  it.each(['http://127.0.0.1:8080', 'http://localhost:8080/x', 'http://LOCALHOST', 'http://[::1]:9000'])(
    'takes %s with --insecure (loopback)',
    (url) => {
      expect(() => checkIngressTransport(url, true)).not.toThrow()
    },
  )

  it.each([
    'http://ingress.example.com',
    'http://10.0.0.5:8080',
    'http://127.0.0.1.nip.io',
    'http://0.0.0.0:8080',
  ])('refuses %s even with --insecure (not loopback)', (url) => {
    expect(() => checkIngressTransport(url, true)).toThrow(/--insecure is only for a loopback ingress/)
  })

  it('leaves other schemes to the platform', () => {
    expect(() => checkIngressTransport('ftp://x', false)).not.toThrow()
  })

  it('checks the URL ingressWebhookUrl builds, token included', () => {
    const url = ingressWebhookUrl('http://ingress.example.com', {
      source: 'prod',
      webhookSecrets: 'prod=secret-0123456789',
    })
    expect(() => checkIngressTransport(url, false)).toThrow(/http:\/\/ingress\.example\.com uses http/)
  })
})
