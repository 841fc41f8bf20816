import { afterAll, describe, expect, it } from 'vitest'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { buildStandInIngress, publishFailures } from '../support/ingress-stand-in.ts'

// 202 only once the publisher acknowledged: when it fails the way the real one fails (Kafka
// down, a timeout in the queue, a full queue, a message too large, the schema not registered
// yet), the answer is 503 + Retry-After (the platform retries) or, for a message too large, 413
// for that event alone; never 202. Repeated failures are logged once per kind, not per request.
const events = generateConversations({ count: 30, seed: 31, historyItems: 4 })
const retryable = (message: string) => ({
  status: 503,
  retryAfter: '5',
  body: { error: 'unavailable', message },
})
const tooLarge = {
  status: 413,
  retryAfter: undefined,
  body: { error: 'payload_too_large', message: 'Kafka refuses a message this large' },
}

const failures: Array<{
  name: keyof typeof publishFailures
  answer: ReturnType<typeof retryable> | typeof tooLarge
}> = [
  { name: 'outage', answer: retryable('Kafka is not reachable; retry later') },
  { name: 'timeout', answer: retryable('Kafka did not take the event in time; retry later') },
  {
    name: 'queueFull',
    answer: retryable('the ingress is at its queue limit while Kafka catches up; retry later'),
  },
  { name: 'batchTooLarge', answer: retryable('Kafka refused a batch by size; retry') },
  { name: 'tooLarge', answer: tooLarge },
  { name: 'kafkaTooLarge', answer: tooLarge },
]

describe('ingress answers when publishing fails (inject, stand-in publisher)', () => {
  const ingress = buildStandInIngress()
  afterAll(() => ingress.app.close())

  it.each(failures)('$name → $answer.status', async ({ name, answer }) => {
    ingress.publisher.failWith(publishFailures[name])
    const event = events[failures.findIndex((failure) => failure.name === name)]!
    const before = ingress.publisher.published.length
    const response = await ingress.post(event)
    expect(ingress.publisher.published.slice(before).map(({ message }) => message.key)).toEqual([
      event.data.session_id,
    ])
    expect({
      status: response.statusCode,
      retryAfter: response.headers['retry-after'],
      body: response.json(),
    }).toEqual(answer)
  })

  it('logs a publish failure once per kind while every request fails alike, and counts each', async () => {
    ingress.publisher.failWith(publishFailures.outage)
    const logsBefore = ingress.logs.length
    const responses = await Promise.all(events.slice(10, 30).map((event) => ingress.post(event)))
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(503))
    const lines = (message: string) =>
      ingress.logs.slice(logsBefore).filter((line) => line.includes(`"msg":"${message}"`))
    // The first outage above already wrote this interval's line of both kinds.
    expect(lines('publish to Kafka failed')).toEqual([])
    expect(lines('request failed')).toEqual([])
    const metrics = await ingress.metrics()
    // 4 retryable failures above, 20 here; the two too-large ones are rejected, not refused.
    expect(metrics).toContain(
      'ingress_events_total{outcome="refused",reason="unavailable",service="ingress"} 24',
    )
    expect(metrics).toContain(
      'ingress_events_total{outcome="rejected",reason="payload_too_large",service="ingress"} 2',
    )
    expect(metrics).not.toMatch(/ingress_events_total\{outcome="accepted"/)
  })

  it('wrote one warning per kind of failure, naming the Kafka error', () => {
    const warnings = ingress.logs.map((line) => JSON.parse(line) as Record<string, unknown>)
    const published = warnings.filter((line) => line.msg === 'publish to Kafka failed')
    expect(published.map((line) => line.err)).toEqual([
      'Producing messages failed. (connect ECONNREFUSED 127.0.0.1:9092)',
      'Kafka did not take the message within 4000 ms',
      'Kafka refused the batch by size; retry',
    ])
    const failed = warnings.filter((line) => line.msg === 'request failed')
    expect(failed.map((line) => [line.status, line.url])).toEqual([
      [503, '/webhooks/conversation-complete?[redacted]'],
    ])
  })

  it('accepts again once the publisher does', async () => {
    ingress.publisher.failWith(undefined)
    const response = await ingress.post(events[29])
    expect(response.statusCode).toBe(202)
    expect(response.headers['retry-after']).toBeUndefined()
  })
})

describe('ingress before the event schema is registered (inject, stand-in publisher)', () => {
  const ingress = buildStandInIngress({ codec: undefined })
  afterAll(() => ingress.app.close())

  it('answers 503 + Retry-After and publishes nothing', async () => {
    const response = await ingress.post(events[0])
    expect(response.statusCode).toBe(503)
    expect(response.headers['retry-after']).toBe('5')
    expect(response.json()).toEqual({
      error: 'unavailable',
      message: 'the event schema is not registered with the schema registry yet (see /readyz); retry later',
    })
    expect(ingress.publisher.published).toEqual([])
  })
})
