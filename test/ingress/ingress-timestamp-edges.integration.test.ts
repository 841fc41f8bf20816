import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { topics } from '../../core/kafka/topics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { type RunningWorker, startWorker } from '../../services/worker/worker.ts'
import { database, embeddedClickHouse, queryRows, tempDataDir } from '../support/embedded-clickhouse.ts'
import { postJson, startTestIngress, type TestIngress } from '../support/ingress-test-server.ts'
import { readTopic, testKafka } from '../support/kafka-test-helpers.ts'
import { createPrivateKafka, type PrivateKafka } from '../support/private-kafka.ts'
import { waitFor } from '../support/wait-for.ts'
import { testLogger, workerConfig } from '../support/worker-settings.ts'

// What the ingress accepts, the worker stores: webhooks whose start_time is each edge value go
// through a real ingress, Kafka (a private broker, so the worker reads only these events), the
// worker and embedded ClickHouse. Each is either answered `quarantined` or answered `accepted`
// and readable back with the right instant — never accepted and then dead-lettered.
const edges: Array<{ value: string; stored?: string }> = [
  { value: '2026-03-01T10:00:00Z', stored: '2026-03-01T10:00:00.000Z' },
  { value: '2026-03-01T10:00Z', stored: '2026-03-01T10:00:00.000Z' },
  { value: '2026-03-01 10:00:00.5+02:00', stored: '2026-03-01T08:00:00.500Z' },
  { value: '2026-03-01T10:00:00.123456789-0530', stored: '2026-03-01T15:30:00.123Z' },
  { value: '2026-03-01T10:00:00.1234567890Z' },
  { value: '2024-02-29T12:00:00Z', stored: '2024-02-29T12:00:00.000Z' },
  { value: '2026-02-29T12:00:00Z' },
  { value: '2026-02-31T12:00:00Z' },
  { value: '2016-12-31T23:59:60Z' },
  { value: '1900-01-01T00:00:00Z', stored: '1900-01-01T00:00:00.000Z' },
  { value: '1899-12-31T23:59:59.999Z' },
  { value: '1900-01-01T00:30:00+01:00' },
  { value: '2299-12-31T23:59:59.999Z', stored: '2299-12-31T23:59:59.999Z' },
  { value: '2300-01-01T00:00:00Z' },
  { value: '2026-03-01T10:00:00' },
]

describe('timestamp edges: accepted means stored', () => {
  const data = tempDataDir('ingress-timestamp-edges')
  let kafka: PrivateKafka
  let client: KafkaSettings
  let ingress: TestIngress
  let worker: RunningWorker
  let clickhouse: ClickHouseClient
  const events = generateConversations({ count: edges.length, seed: 1010, historyItems: 2 })
  const answers: Array<{ value: string; stored?: string; sessionId: string; status: number; body: unknown }> =
    []

  beforeAll(async () => {
    kafka = await createPrivateKafka()
    await kafka.start()
    client = testKafka(kafka.brokers)
    ingress = await startTestIngress({ KAFKA_BROKERS: kafka.brokers })
    await ingress.waitUntilReady(120_000)
    clickhouse = embeddedClickHouse(data.dir)
    worker = await startWorker(
      workerConfig(topics.conversationComplete, data.dir, {
        KAFKA_BROKERS: kafka.brokers,
        WORKER_DLQ_TOPIC: topics.deadLetter,
      }),
      testLogger(),
      { clickhouse },
    )
  })
  afterAll(async () => {
    await worker?.stop()
    await clickhouse?.close()
    await ingress?.close()
    await kafka?.remove()
    data.remove()
  })

  it('answers each edge value accepted or quarantined', async () => {
    for (const [index, edge] of edges.entries()) {
      const event = events[index]!
      event.data.start_time = edge.value
      const response = await postJson(ingress.webhookUrl(), event)
      answers.push({
        ...edge,
        sessionId: event.data.session_id,
        status: response.status,
        body: await response.json(),
      })
    }
    expect(
      answers.map(({ value, status, body }) => ({
        value,
        status,
        body: (body as { status: string }).status,
      })),
    ).toEqual(
      edges.map(({ value, stored }) => ({
        value,
        status: 202,
        body: stored === undefined ? 'quarantined' : 'accepted',
      })),
    )
  })

  it('stores every accepted one with its instant, and dead-letters none', async () => {
    const accepted = answers.filter((answer) => (answer.body as { status: string }).status === 'accepted')
    const deadLetters = await readTopic(client, topics.deadLetter)
    try {
      const storedRows = () =>
        queryRows<{ session_id: string; start_time: number }>(
          clickhouse,
          `SELECT session_id, toUnixTimestamp64Milli(start_time) AS start_time
           FROM ${database}.conversations FINAL ORDER BY session_id`,
        )
      // Every accepted event ends in a table or in the DLQ: wait until all are accounted for.
      const rows = await waitFor(
        storedRows,
        (current) => current.length + deadLetters.messages.length >= accepted.length,
        120_000,
        'accepted events stored or dead-lettered',
      )
      expect(deadLetters.messages.map((message) => message.key?.toString())).toEqual([])
      expect(rows.map((row) => ({ session_id: row.session_id, start_time: Number(row.start_time) }))).toEqual(
        accepted
          .map(({ sessionId, stored }) => ({ session_id: sessionId, start_time: Date.parse(stored!) }))
          .sort((a, b) => a.session_id.localeCompare(b.session_id)),
      )
    } finally {
      await deadLetters.stop()
    }
  })

  it('keeps each quarantined one in the quarantine topic with its reason', async () => {
    const quarantined = answers.filter((answer) => answer.stored === undefined)
    const reader = await readTopic(client, topics.quarantine)
    try {
      const messages = await reader.waitFor((received) => received.length >= quarantined.length, 60_000)
      const byKey = new Map(messages.map((message) => [message.key?.toString(), message]))
      for (const { sessionId, value } of quarantined) {
        const message = byKey.get(sessionId)
        expect(message, value).toBeDefined()
        expect(JSON.parse(message!.value!.toString()).data.start_time).toBe(value)
        expect(String(message!.headers!['va-problems'])).toContain('data.start_time')
      }
    } finally {
      await reader.stop()
    }
  })
})
