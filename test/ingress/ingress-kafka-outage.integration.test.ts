import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { topics } from '../../core/kafka/topics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { postJson, startTestIngress, type TestIngress } from '../support/ingress-test-server.ts'
import { readTopic, testKafka } from '../support/kafka-test-helpers.ts'
import { createPrivateKafka, type PrivateKafka } from '../support/private-kafka.ts'

// Kafka stops under a running ingress: it must refuse with 503 + Retry-After (the platform
// retries), never answer 202 for an event Kafka does not have, and accept again once Kafka is back.
describe('ingress when Kafka goes away and comes back', () => {
  let kafka: PrivateKafka
  let ingress: TestIngress
  const events = generateConversations({ count: 60, seed: 31, historyItems: 10 })
  const acknowledged = new Set<string>()

  beforeAll(async () => {
    kafka = await createPrivateKafka()
    await kafka.start()
    ingress = await startTestIngress({ KAFKA_BROKERS: kafka.brokers, INGRESS_PUBLISH_TIMEOUT_MS: '4000' })
    await ingress.waitUntilReady()
  })
  afterAll(async () => {
    await ingress?.close()
    await kafka?.remove()
  })

  async function post(event: (typeof events)[number]) {
    const response = await postJson(ingress.webhookUrl(), event)
    if (response.status === 202) acknowledged.add(event.data.session_id)
    return response
  }

  it('accepts while Kafka is up', async () => {
    const responses = await Promise.all(events.slice(0, 20).map(post))
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(202))
  })

  it('answers 503 with Retry-After while Kafka is down, and says so in /readyz', async () => {
    await kafka.stop()
    const logsBefore = ingress.logs.length
    const responses = await Promise.all(events.slice(20, 40).map(post))
    for (const response of responses) {
      expect(response.status).toBe(503)
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(((await response.json()) as { error: string }).error).toBe('unavailable')
    }
    // Every request fails alike: a warning per kind per interval says so, not one per request.
    const outageLog = ingress.logs.slice(logsBefore).join('')
    const lines = (message: string) =>
      outageLog.split('\n').filter((line) => line.includes(`"msg":"${message}"`))
    for (const message of ['publish to Kafka failed', 'request failed']) {
      expect(lines(message).length, message).toBeGreaterThanOrEqual(1)
      expect(lines(message).length, message).toBeLessThanOrEqual(2)
    }
    const ready = await fetch(`${ingress.url}/readyz`)
    expect(ready.status).toBe(503)
    expect(((await ready.json()) as { checks: { kafka: string } }).checks.kafka).toMatch(/unreachable/)
  })

  it('accepts again once Kafka is back, and Kafka holds every event that was answered 202', async () => {
    await kafka.start()
    await ingress.waitUntilReady(120_000)
    // The platform retries what was refused; new events keep coming.
    const retried = events.slice(20, 40)
    const fresh = events.slice(40)
    const deadline = Date.now() + 120_000
    for (const event of [...retried, ...fresh]) {
      while (!acknowledged.has(event.data.session_id)) {
        expect(Date.now()).toBeLessThan(deadline)
        const response = await post(event)
        if (response.status !== 202) await new Promise((resolve) => setTimeout(resolve, 500))
      }
    }
    expect(acknowledged.size).toBe(events.length)

    const reader = await readTopic(testKafka(kafka.brokers), topics.conversationComplete)
    try {
      const messages = await reader.waitFor((received) => {
        const keys = new Set(received.map((message) => message.key!.toString()))
        return [...acknowledged].every((sessionId) => keys.has(sessionId))
      }, 60_000)
      const keys = new Set(messages.map((message) => message.key!.toString()))
      for (const sessionId of acknowledged) expect(keys.has(sessionId)).toBe(true)
    } finally {
      await reader.stop()
    }
  })
})
