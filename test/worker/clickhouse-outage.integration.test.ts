import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import type { EventCodec } from '../../core/event/event-codec.ts'
import type { BatchProducer } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { createMetricsRegistry } from '../../core/runtime/metrics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import type { RunningWorker } from '../../services/worker/worker.ts'
import { database } from '../support/embedded-clickhouse.ts'
import { committedTotal, produceEvents, type Sent } from '../support/produce-events.ts'
import { expectExactCounts, storedConversations } from '../support/stored-rows.ts'
import { waitFor } from '../support/wait-for.ts'
import { startWorkerFixture, type WorkerFixture } from '../support/worker-fixture.ts'
import {
  domainTotals,
  expectedDomainTotals,
  liveSpan,
  metricValue,
} from '../support/worker-metrics-reading.ts'

// Embedded mode: ClickHouse "goes away" for the worker by detaching the tables it writes (real
// inserts fail with UNKNOWN_TABLE). The worker retries with backoff, pauses, commits nothing,
// and after the tables return it resumes by itself and loses nothing. Stalled longer than
// WORKER_STALL_SECONDS, its /healthz answers 503 with the reason.
describe('ClickHouse unavailable for a while', () => {
  let fixture: WorkerFixture
  let kafka: KafkaSettings
  let producer: BatchProducer
  let codec: EventCodec
  let clickhouse: ClickHouseClient
  let worker: RunningWorker
  let topic: string
  let groupId: string
  const registry = createMetricsRegistry('worker')
  const sent: Sent[] = []

  beforeAll(async () => {
    fixture = await startWorkerFixture('worker-outage', 2)
    ;({ kafka, producer, codec, clickhouse, topic, groupId } = fixture)
    worker = await fixture.startWorker(
      { WORKER_STALL_SECONDS: '1' },
      { registry, backoff: { baseMs: 100, maxMs: 800 } },
    )
  })

  afterAll(async () => {
    await fixture?.stop()
  })

  it('retries while the tables are gone, commits nothing, and loses nothing once they are back', async () => {
    const events = generateConversations({ count: 150, seed: 31, historyItems: 12, ...liveSpan() })
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
