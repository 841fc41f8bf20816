import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { topics } from '../../core/kafka/topics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { postJson, startTestIngress, type TestIngress } from '../support/ingress-test-server.ts'
import { readTopic, testKafka } from '../support/kafka-test-helpers.ts'
import { createPrivateKafka, type PrivateKafka } from '../support/private-kafka.ts'

// Kafka (a broker of the test's own) is stopped while webhooks keep arriving, more than the
// ingress's queue may hold, and started again while they still arrive. The ingress answers 503 +
// Retry-After, its queue never holds more than INGRESS_QUEUE_LIMIT_BYTES, and nothing it answered
// 503 appears in the topic (the platform retries those; a copy sent later would be a silent
// duplicate); everything it answered 202 does.
const queueLimitBytes = 2 * 1024 * 1024

describe('ingress while Kafka stalls', () => {
  let kafka: PrivateKafka
  let ingress: TestIngress
  // One large conversation (~400 items, ~140 KB Avro) sent under ever new session ids.
  const [template] = generateConversations({ count: 1, seed: 5150, historyItems: 400 })
  const templateJson = JSON.stringify(template)
  const templateId = template!.data.session_id
  const refused = new Set<string>()
  const accepted = new Set<string>()
  const reasons = new Map<string, number>()
  const queueSamples: number[] = []
  const memory: Record<string, { heapUsedMb: number; rssMb: number }> = {}

  const megabytes = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10
  const sampleMemory = (label: string) => {
    const usage = process.memoryUsage()
    memory[label] = { heapUsedMb: megabytes(usage.heapUsed), rssMb: megabytes(usage.rss) }
  }
  async function queuedBytes(): Promise<number> {
    const text = await (await fetch(`${ingress.url}/metrics`)).text()
    const match = /^ingress_publish_queue_bytes(?:\{[^}]*\})? (\d+)/m.exec(text)
    if (!match) throw new Error('ingress_publish_queue_bytes is not exposed')
    return Number(match[1])
  }

  async function postOne() {
    const sessionId = randomUUID()
    const response = await postJson(ingress.webhookUrl(), templateJson.replace(templateId, sessionId))
    const body = (await response.json()) as { message?: string }
    if (response.status === 202) accepted.add(sessionId)
    else {
      expect(response.status).toBe(503)
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
      refused.add(sessionId)
      const reason = body.message?.includes('queue limit') ? 'queue full' : 'timeout or Kafka error'
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1)
    }
  }

  beforeAll(async () => {
    kafka = await createPrivateKafka()
    await kafka.start()
    ingress = await startTestIngress({
      KAFKA_BROKERS: kafka.brokers,
      INGRESS_PUBLISH_TIMEOUT_MS: '3000',
      INGRESS_QUEUE_LIMIT_BYTES: String(queueLimitBytes),
      LOG_LEVEL: 'warn',
    })
    await ingress.waitUntilReady(120_000)
  })
  afterAll(async () => {
    await ingress?.close()
    await kafka?.remove()
    console.info('ingress queue and memory while Kafka was stopped', {
      queueLimitBytes,
      maxQueuedBytes: Math.max(0, ...queueSamples),
      samples: queueSamples.length,
      answers: { accepted: accepted.size, refused: refused.size, ...Object.fromEntries(reasons) },
      memory,
    })
  })

  it('answers 503 + Retry-After while Kafka is away, holding no more than the queue limit', async () => {
    await kafka.stop()
    sampleMemory('before')
    let posting = true
    const sampler = (async () => {
      while (posting) {
        queueSamples.push(await queuedBytes())
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    })()
    // 100 webhooks at a time (~14 MB), far more than the queue may hold, until Kafka is back. Kafka
    // comes back once the queue filled and the ingress refused for it (or the test times out).
    let restarted = false
    const restart = (async () => {
      while ((reasons.get('queue full') ?? 0) === 0) await new Promise((resolve) => setTimeout(resolve, 50))
      await kafka.start()
      await ingress.waitUntilReady(120_000)
      restarted = true
    })()
    for (let wave = 0; !restarted; wave++) {
      await Promise.all(Array.from({ length: 100 }, postOne))
      sampleMemory(`wave ${wave}`)
    }
    await restart
    // A little longer with Kafka back: what the queue still held goes out now, or never.
    for (let wave = 0; wave < 3; wave++) await Promise.all(Array.from({ length: 20 }, postOne))
    posting = false
    await sampler
    sampleMemory('after')
    expect(reasons.get('queue full') ?? 0).toBeGreaterThan(0)
    expect(Math.max(...queueSamples)).toBeLessThanOrEqual(queueLimitBytes)
    expect(await queuedBytes()).toBe(0)
  })

  it('has in the topic every event answered 202 and none answered 503', async () => {
    const reader = await readTopic(testKafka(kafka.brokers), topics.conversationComplete)
    try {
      await reader.waitFor((received) => {
        const keys = new Set(received.map((message) => message.key?.toString()))
        return [...accepted].every((sessionId) => keys.has(sessionId))
      }, 60_000)
      // The queue is first in, first out: the last events accepted left after anything held before them.
      const keys = reader.messages.map((message) => message.key!.toString())
      expect(keys.filter((key) => refused.has(key)).length).toBe(0)
      expect(new Set(keys)).toEqual(accepted)
    } finally {
      await reader.stop()
    }
  })
})
