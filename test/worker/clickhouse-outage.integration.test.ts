import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../services/core/clickhouse.ts'
import type { EventCodec } from '../../services/core/event-codec.ts'
import type { Kafka, Producer } from '../../services/core/kafka.ts'
import { createMetricsRegistry } from '../../services/core/metrics.ts'
import { generateConversations } from '../../services/synthetic/conversation-generator.ts'
import { type RunningWorker, startWorker } from '../../services/worker/worker.ts'
import { createTestTopic, testKafka } from '../support/kafka-test-helpers.ts'
import {
  committedTotal,
  connectedProducer,
  database,
  domainTotals,
  embeddedClickHouse,
  expectExactCounts,
  expectedDomainTotals,
  metricValue,
  produceEvents,
  type Sent,
  storedConversations,
  tempDataDir,
  testCodec,
  testLogger,
  waitFor,
  workerConfig,
} from './worker-test-support.ts'

// Embedded mode: ClickHouse "goes away" for the worker by detaching the tables it writes (real
// inserts fail with UNKNOWN_TABLE). The worker retries with backoff, pauses, commits nothing,
// and after the tables return it resumes by itself and loses nothing. Stalled longer than
// WORKER_STALL_SECONDS, its /healthz answers 503 with the reason.
describe('ClickHouse unavailable for a while', () => {
  const data = tempDataDir('worker-outage')
  let kafka: Kafka
  let producer: Producer
  let codec: EventCodec
  let clickhouse: ClickHouseClient
  let worker: RunningWorker
  let topic: string
  let groupId: string
  const registry = createMetricsRegistry('worker')
  const sent: Sent[] = []

  beforeAll(async () => {
    kafka = testKafka()
    topic = await createTestTopic(kafka, 'worker-outage', 2)
    groupId = `va-test-worker-outage-${topic}`
    codec = await testCodec()
    producer = await connectedProducer(kafka)
    clickhouse = embeddedClickHouse(data.dir)
    worker = await startWorker(
      workerConfig(topic, data.dir, { WORKER_GROUP_ID: groupId, WORKER_STALL_SECONDS: '1' }),
      testLogger(),
      {
        clickhouse,
        registry,
        backoff: { baseMs: 100, maxMs: 800 },
      },
    )
  })

  afterAll(async () => {
    await worker?.stop()
    await producer?.disconnect()
    await clickhouse?.close()
    data.remove()
  })

  it('retries while the tables are gone, commits nothing, and loses nothing once they are back', async () => {
    const events = generateConversations({ count: 150, seed: 31, historyItems: 12 })
    sent.push(...(await produceEvents(producer, codec, topic, events.slice(0, 50))))
    await waitFor(
      () => committedTotal(kafka, groupId, topic),
      (n) => n === 50,
      60_000,
      'first commits',
    )

    await clickhouse.command({ query: `DETACH TABLE ${database}.conversations` })
    await clickhouse.command({ query: `DETACH TABLE ${database}.conversation_items` })
    sent.push(...(await produceEvents(producer, codec, topic, events.slice(50))))
    await waitFor(
      () => metricValue(worker.metricsUrl!, 'worker_retries_total{operation="clickhouse_insert"'),
      (n) => n >= 6,
      60_000,
      'retries',
    )
    expect(await metricValue(worker.metricsUrl!, 'worker_clickhouse_failing')).toBe(1)
    expect(await committedTotal(kafka, groupId, topic)).toBe(50)
    // Stalled longer than WORKER_STALL_SECONDS: /healthz says so, with the reason.
    const health = await waitFor(
      async () => {
        const response = await fetch(`${worker.metricsUrl}/healthz`)
        return {
          status: response.status,
          body: (await response.json()) as { clickhouseFailing: boolean; reason?: string },
        }
      },
      (answer) => answer.status === 503,
      60_000,
      '/healthz 503',
    )
    expect(health.body.clickhouseFailing).toBe(true)
    expect(health.body.reason).toContain('retrying clickhouse')
    expect(await metricValue(worker.metricsUrl!, 'worker_stalled')).toBe(1)

    await clickhouse.command({ query: `ATTACH TABLE ${database}.conversation_items` })
    await clickhouse.command({ query: `ATTACH TABLE ${database}.conversations` })
    await waitFor(
      () => committedTotal(kafka, groupId, topic),
      (n) => n === 150,
      60_000,
      'commits after the outage',
    )
    expect(await metricValue(worker.metricsUrl!, 'worker_clickhouse_failing')).toBe(0)
    expect((await fetch(`${worker.metricsUrl}/healthz`)).status).toBe(200)

    await expectExactCounts(clickhouse, sent, expect)
    // The retried writes stored and counted each conversation once.
    expect(await storedConversations(clickhouse)).toEqual({ rows: 150, sessions: 150 })
    expect(await domainTotals([registry])).toEqual(await expectedDomainTotals(sent))
  })
})
