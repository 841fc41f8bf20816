import type { InjectOptions } from 'fastify'
import { afterAll, describe, expect, it } from 'vitest'
import { topics } from '../../core/kafka/topics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { webhookRoute } from '../../services/ingress/ingress-app.ts'
import { buildStandInIngress, standInSchemaId, testSecrets } from '../support/ingress-stand-in.ts'

// The ingress's other routes and the headers of its answers: /healthz, /readyz, /metrics, 404
// for anything else, the 202 bodies of each kind of event, Connection: close while it shuts
// down; and no webhook secret in any answer or log line, whichever way it was presented.
const [event] = generateConversations({ count: 1, seed: 77, historyItems: 3 })
const other = {
  event: 'CallStarted',
  data: { session_id: 'a8f5f167-f44f-4964-8e5a-3f1d2c3b4a59', note: 'x' },
}
const json = 'application/json; charset=utf-8'

describe('ingress routes and answer headers (inject, stand-in publisher)', () => {
  let ready = true
  const ingress = buildStandInIngress({
    readiness: async () =>
      ready
        ? { ready: true, checks: { kafka: 'ok', registry: 'ok', schema: 'registered (id 4242)' } }
        : {
            ready: false,
            checks: { kafka: 'unreachable: ECONNREFUSED', registry: 'ok', schema: 'not registered yet' },
          },
  })
  const answers: string[] = []
  const inject = async (options: InjectOptions) => {
    const response = await ingress.app.inject(options)
    answers.push(JSON.stringify(response.headers), response.body)
    return response
  }
  afterAll(() => ingress.app.close())

  it('answers /healthz 200', async () => {
    const response = await inject({ method: 'GET', url: '/healthz' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe(json)
    expect(response.json()).toEqual({ status: 'ok' })
  })

  it('answers /readyz 200 with its checks when ready, 503 when not, and does not log that 503 as a failure', async () => {
    const yes = await inject({ method: 'GET', url: '/readyz' })
    expect(yes.statusCode).toBe(200)
    expect(yes.json()).toEqual({
      status: 'ready',
      checks: { kafka: 'ok', registry: 'ok', schema: 'registered (id 4242)' },
    })
    ready = false
    const logsBefore = ingress.logs.length
    const no = await inject({ method: 'GET', url: '/readyz' })
    ready = true
    expect(no.statusCode).toBe(503)
    expect(no.headers['retry-after']).toBeUndefined()
    expect(no.json()).toEqual({
      status: 'not_ready',
      checks: { kafka: 'unreachable: ECONNREFUSED', registry: 'ok', schema: 'not registered yet' },
    })
    const lines = ingress.logs.slice(logsBefore).map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.map((line) => [line.level, line.msg, line.status])).toEqual([[20, 'request', 503]])
  })

  it('answers 404 in the error shape to any other route or method', async () => {
    for (const request of [
      { method: 'GET' as const, url: webhookRoute },
      { method: 'POST' as const, url: '/webhooks/other' },
      { method: 'GET' as const, url: '/' },
    ]) {
      const response = await inject(request)
      expect(response.statusCode, request.url).toBe(404)
      expect(response.headers['content-type']).toBe(json)
      expect(response.json()).toEqual({
        error: 'not_found',
        message:
          'POST /webhooks/conversation-complete is the webhook route, POST /v1/traces the OTLP/HTTP trace receiver',
      })
    }
  })

  it('answers 202 with the session of a conversation and the name of another event kind', async () => {
    const conversation = await ingress.post(event)
    expect(conversation.statusCode).toBe(202)
    expect(conversation.headers['content-type']).toBe(json)
    expect(conversation.json()).toEqual({ status: 'accepted', session_id: event!.data.session_id })
    const otherKind = await ingress.post(other)
    expect(otherKind.statusCode).toBe(202)
    expect(otherKind.json()).toEqual({ status: 'accepted', event: 'CallStarted' })
    answers.push(conversation.body, otherKind.body)
    const [published, publishedOther] = ingress.publisher.published
    expect(published!.topic).toBe(topics.conversationComplete)
    expect(published!.message.value.readInt32BE(1)).toBe(standInSchemaId)
    expect(publishedOther!.topic).toBe(topics.otherEvents)
    expect(publishedOther!.message.headers!['va-event']).toBe('CallStarted')
  })

  it('answers 500 in the error shape when something unexpected fails, and logs it', async () => {
    const broken = buildStandInIngress({
      readiness: async () => {
        throw new TypeError('readiness broke')
      },
    })
    try {
      const response = await broken.app.inject({ method: 'GET', url: '/readyz' })
      expect(response.statusCode).toBe(500)
      expect(response.json()).toEqual({
        error: 'internal_error',
        message: 'internal error; see the ingress log',
      })
      expect(broken.logs.join('')).toContain('"msg":"unexpected error"')
      expect(broken.logs.join('')).toContain('readiness broke')
    } finally {
      await broken.app.close()
    }
  })

  it('exposes /metrics in the Prometheus text format, counting answers by route and status', async () => {
    const response = await inject({ method: 'GET', url: '/metrics' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8')
    expect(response.body).toContain(
      'ingress_http_requests_total{route="/webhooks/conversation-complete",method="POST",status="202",service="ingress"} 2',
    )
    expect(response.body).toContain(
      'ingress_http_requests_total{route="/readyz",method="GET",status="503",service="ingress"} 1',
    )
    expect(response.body).toContain(
      'ingress_http_requests_total{route="unmatched",method="GET",status="404",service="ingress"} 2',
    )
    expect(response.body).toContain('ingress_in_flight_requests{service="ingress"} 0')
  })

  it('puts no webhook secret in any answer or log line, from the query or a Bearer header', async () => {
    for (const token of [testSecrets.prod, testSecrets.staging]) {
      answers.push((await ingress.post(event, { token })).body)
      answers.push((await ingress.post(event, { token: null, authorization: `Bearer ${token}` })).body)
      // Refused with a secret presented (wrong place or kind) and logged at warn level as well.
      answers.push((await ingress.post('{', { token })).body)
      answers.push((await ingress.post(event, { token: null, authorization: `Basic ${token}` })).body)
    }
    const log = ingress.logs.join('')
    expect(log).toContain('/webhooks/conversation-complete?[redacted]')
    expect(answers.length).toBeGreaterThan(10)
    for (const secret of Object.values(testSecrets)) {
      expect(log).not.toContain(secret)
      for (const answer of answers) expect(answer).not.toContain(secret)
    }
  })
})

describe('ingress answers while it shuts down (inject, stand-in publisher)', () => {
  it('finishes a request in flight with Connection: close once closing has begun', async () => {
    const ingress = buildStandInIngress()
    // Runs after the app's own preClose hook (which marks it closing), and holds the close open.
    // (New requests once closing are refused by Fastify itself; inject() cannot send one then.)
    let closingBegun!: () => void
    const begun = new Promise<void>((resolve) => (closingBegun = resolve))
    let finishClosing!: () => void
    const finish = new Promise<void>((resolve) => (finishClosing = resolve))
    ingress.app.addHook('preClose', async () => {
      closingBegun()
      await finish
    })
    const open = await ingress.post(event)
    expect(open.statusCode).toBe(202)
    expect(open.headers.connection).toBe('keep-alive')

    ingress.publisher.hold()
    const inFlight = ingress.post(event)
    while (ingress.publisher.waiting === 0) await new Promise((resolve) => setImmediate(resolve))
    const closed = ingress.app.close()
    await begun
    ingress.publisher.release()
    const response = await inFlight
    finishClosing()
    await closed
    expect(response.statusCode).toBe(202)
    expect(response.json()).toEqual({ status: 'accepted', session_id: event!.data.session_id })
    expect(response.headers.connection).toBe('close')
  })
})
