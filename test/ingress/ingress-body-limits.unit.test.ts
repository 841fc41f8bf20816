import { Readable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { webhookRoute } from '../../services/ingress/ingress-app.ts'
import { buildStandInIngress, testSecrets } from '../support/ingress-stand-in.ts'

// What body the webhook route reads: JSON content types only (415 otherwise), at most
// INGRESS_BODY_LIMIT_BYTES (413 above, whether Content-Length says so or the bytes do), and
// exactly as many bytes as Content-Length says (400 otherwise).
const bodyLimit = 64 * 1024
const [valid] = generateConversations({ count: 1, seed: 21, historyItems: 6 })
const sessionId = valid!.data.session_id
const body = JSON.stringify(valid)
const withData = (data: Record<string, unknown>) =>
  JSON.stringify({ event: 'ConversationComplete', data: { session_id: sessionId, ...data } })
/** A valid conversation of exactly `bytes` bytes (its agent_name padded). */
const ofSize = (bytes: number) => {
  const text = withData({ agent_name: '' })
  return text.replace('"agent_name":""', `"agent_name":"${'a'.repeat(bytes - text.length)}"`)
}
const unsupported = {
  error: 'unsupported_media_type',
  message: 'content type must be application/json or application/webhook+json',
}
const tooLarge = { error: 'payload_too_large', message: 'request body is larger than the limit' }

describe('ingress content types and body limits (inject, stand-in publisher)', () => {
  const ingress = buildStandInIngress({ bodyLimitBytes: bodyLimit })
  afterAll(() => ingress.app.close())

  it.each([
    { name: 'text/plain', body, contentType: 'text/plain' },
    { name: 'application/xml', body: '<event/>', contentType: 'application/xml' },
    { name: 'form data', body: 'a=b', contentType: 'application/x-www-form-urlencoded' },
    { name: 'no content type', body, contentType: null },
  ])('$name → 415', async ({ body: payload, contentType }) => {
    const response = await ingress.post(payload, { contentType })
    expect(response.statusCode).toBe(415)
    expect(response.json()).toEqual(unsupported)
  })

  it('answers 415 to a POST without a body', async () => {
    const response = await ingress.post(undefined, { contentType: null })
    expect(response.statusCode).toBe(415)
    expect(response.json()).toEqual({ error: 'unsupported_media_type', message: 'a JSON body is required' })
  })

  it.each(['application/json; charset=utf-8', 'application/webhook+json'])(
    'accepts %s → 202',
    async (contentType) => {
      const response = await ingress.post(body, { contentType })
      expect(response.statusCode).toBe(202)
      expect(response.json()).toEqual({ status: 'accepted', session_id: sessionId })
    },
  )

  it('accepts a body of exactly the limit', async () => {
    const payload = ofSize(bodyLimit)
    expect(Buffer.byteLength(payload)).toBe(bodyLimit)
    const response = await ingress.post(payload)
    expect(response.statusCode).toBe(202)
    expect(ingress.publisher.published.at(-1)!.message.key).toBe(sessionId)
  })

  it('answers 413 to a body one byte over the limit, as its Content-Length says', async () => {
    const before = ingress.publisher.published.length
    const response = await ingress.post(ofSize(bodyLimit + 1))
    expect(response.statusCode).toBe(413)
    expect(response.json()).toEqual(tooLarge)
    expect(ingress.publisher.published.length).toBe(before)
  })

  it('answers 413 to a body over the limit sent without a Content-Length, and closes the connection', async () => {
    const before = ingress.publisher.published.length
    const half = Buffer.from(ofSize(bodyLimit)).subarray(0, bodyLimit / 2 + 1)
    const response = await ingress.app.inject({
      method: 'POST',
      url: `${webhookRoute}?token=${testSecrets.prod}`,
      headers: { 'content-type': 'application/json' },
      payload: Readable.from([half, half]),
    })
    expect(response.statusCode).toBe(413)
    expect(response.json()).toEqual(tooLarge)
    expect(response.headers.connection).toBe('close')
    expect(ingress.publisher.published.length).toBe(before)
  })

  it('answers 400 to a body shorter than its Content-Length', async () => {
    const response = await ingress.post(body, { headers: { 'content-length': String(body.length - 5) } })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({
      error: 'bad_request',
      message: 'Request body size did not match Content-Length',
      details: [{ path: '', problem: 'invalid content length' }],
    })
  })

  it('counts each refusal by its reason', async () => {
    const metrics = await ingress.metrics()
    expect(metrics).toContain(
      'ingress_events_total{outcome="rejected",reason="unsupported_media_type",service="ingress"} 5',
    )
    expect(metrics).toContain(
      'ingress_events_total{outcome="rejected",reason="payload_too_large",service="ingress"} 2',
    )
  })
})
