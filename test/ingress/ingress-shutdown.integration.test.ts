import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { topics } from '../../core/kafka/topics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { ingressEnvironment, ingressNodeFlags } from '../../services/ingress/main.ts'
import { kafkaBrokers, schemaRegistryUrl } from '../stack/servers.ts'
import { postJson } from '../support/ingress-test-server.ts'
import { endOffsets, readTopic, testKafka } from '../support/kafka-test-helpers.ts'

// SIGTERM under load: the ingress stops accepting, finishes what is in flight, flushes the
// producer and exits 0 — and every request it answered 202 is in Kafka.
const ingressMain = fileURLToPath(new URL('../../services/ingress/main.ts', import.meta.url))
const secret = 'shutdown-secret-0123456789'

describe('ingress shutdown on SIGTERM', () => {
  it('exits 0 after answering what was in flight, with every 202 in Kafka', async () => {
    const port = 18_000 + Math.floor(Math.random() * 1000)
    const child = spawn(process.execPath, [...ingressNodeFlags, ingressMain], {
      env: {
        ...process.env,
        ...ingressEnvironment,
        KAFKA_BROKERS: kafkaBrokers(),
        SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
        WEBHOOK_SECRETS: `test=${secret}`,
        INGRESS_HOST: '127.0.0.1',
        INGRESS_PORT: String(port),
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const output: string[] = []
    child.stdout.on('data', (chunk) => output.push(String(chunk)))
    child.stderr.on('data', (chunk) => output.push(String(chunk)))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    const base = `http://127.0.0.1:${port}`
    const deadline = Date.now() + 60_000
    while ((await fetch(`${base}/readyz`).catch(() => undefined))?.status !== 200) {
      expect(Date.now(), output.join('')).toBeLessThan(deadline)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }

    const kafka = testKafka()
    const start = await endOffsets(kafka, topics.conversationComplete)
    const events = generateConversations({ count: 300, seed: 41, historyItems: 20 })
    // SIGTERM once the first request was accepted, while the rest are still in flight.
    let firstAccepted!: () => void
    const oneAccepted = new Promise<void>((resolve) => (firstAccepted = resolve))
    const answers = events.map((event) =>
      postJson(`${base}/webhooks/conversation-complete?token=${secret}`, event).then(
        (response) => {
          if (response.status === 202) firstAccepted()
          return response.status
        },
        () => 'no answer',
      ),
    )
    await Promise.race([oneAccepted, Promise.all(answers)])
    child.kill('SIGTERM')
    const statuses = await Promise.all(answers)
    expect(await exited).toBe(0)
    expect(output.join('')).toContain('shutting down')

    const accepted = events
      .filter((_, index) => statuses[index] === 202)
      .map((event) => event.data.session_id)
    expect(accepted.length).toBeGreaterThan(0)
    for (const status of statuses) expect([202, 503, 'no answer']).toContain(status)
    const reader = await readTopic(kafka, topics.conversationComplete, start)
    try {
      const messages = await reader.waitFor((received) => {
        const keys = new Set(received.map((message) => message.key!.toString()))
        return accepted.every((sessionId) => keys.has(sessionId))
      }, 60_000)
      expect(messages.length).toBeGreaterThanOrEqual(accepted.length)
    } finally {
      await reader.stop()
    }
  })
})
