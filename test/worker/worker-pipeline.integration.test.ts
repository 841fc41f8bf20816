import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import type { RunningWorker } from '../../services/worker/worker.ts'
import { fixtureNames, loadFixture } from '../fixtures/index.ts'
import { countFinal, database, queryRows } from '../support/embedded-clickhouse.ts'
import { produceEvents, type Sent } from '../support/produce-events.ts'
import { expectedRows, expectStoredRowsEqual, readTable } from '../support/stored-rows.ts'
import { waitFor } from '../support/wait-for.ts'
import { startWorkerFixture, type WorkerFixture } from '../support/worker-fixture.ts'

// Fixtures and 1,000 generated conversations through real Kafka, the real registry and the
// worker into embedded ClickHouse: exactly the expected rows in every table, values equal.
describe('worker: Kafka -> ClickHouse, every table', () => {
  let fixture: WorkerFixture
  let clickhouse: ClickHouseClient
  let worker: RunningWorker
  let sent: Sent[]
  let topic: string

  beforeAll(async () => {
    fixture = await startWorkerFixture('worker-pipeline', 3)
    ;({ clickhouse, topic } = fixture)
    const events = [
      ...fixtureNames.map(loadFixture),
      ...generateConversations({ count: 1000, seed: 4242, unknownFieldRate: 0.1 }),
    ]
    const base = Date.parse('2026-03-01T12:00:00Z')
    sent = await produceEvents(
      fixture.producer,
      fixture.codec,
      topic,
      events,
      'prod',
      (index) => base + index,
    )
    worker = await fixture.startWorker()
    await waitFor(
      () => countFinal(clickhouse, 'conversations'),
      (n) => n >= sent.length,
      180_000,
      'conversations',
    )
  })

  afterAll(async () => {
    await fixture?.stop()
  })

  it('writes exactly the expected rows of every table, values equal to the transform of the input', async () => {
    await expectStoredRowsEqual(clickhouse, sent, expect)
  })

  it('stores item fields equal to the JSON input: timestamps to the millisecond, metrics to the bit of their Float32 rounding', async () => {
    const items = await readTable(
      clickhouse,
      'conversation_items',
      [
        'session_id',
        'item_index',
        'role',
        'content',
        'created_at',
        'started_speaking_at',
        'e2e_latency',
        'llm_node_ttft',
        'tts_node_ttfb',
        'transcription_delay',
        'end_of_turn_delay',
        'tool_output',
      ],
      'session_id, item_index',
    )
    const bySession = new Map<string, Record<string, unknown>[]>()
    for (const item of items) {
      const list = bySession.get(item.session_id as string) ?? []
      list.push(item)
      bySession.set(item.session_id as string, list)
    }
    let compared = 0
    for (const { event } of sent) {
      const stored = bySession.get(event.data.session_id) ?? []
      const history = event.data.history ?? []
      expect(stored).toHaveLength(history.length)
      history.forEach((item, index) => {
        const row = stored[index]!
        expect(row.content).toBe(item.content ?? null)
        expect(row.role).toBe(item.role ?? null)
        expect(row.created_at).toBe(item.created_at ? Date.parse(item.created_at) : null)
        expect(row.started_speaking_at).toBe(
          item.metrics?.started_speaking_at ? Date.parse(item.metrics.started_speaking_at) : null,
        )
        for (const metric of [
          'e2e_latency',
          'llm_node_ttft',
          'tts_node_ttfb',
          'transcription_delay',
          'end_of_turn_delay',
        ] as const) {
          // Stored to Float32's precision (measuredValue, migration 0016).
          const sent = item.metrics?.[metric]
          expect(Object.is(row[metric], sent == null ? null : Math.fround(sent)), metric).toBe(true)
        }
        expect(row.tool_output).toBe(item.tool_output ?? null)
        compared++
      })
    }
    expect(compared).toBeGreaterThan(30_000)
  })

  it('feeds the latency rollup with every metric value exactly once', async () => {
    const [fromItems] = await queryRows<{ n: number }>(
      clickhouse,
      `SELECT countIf(e2e_latency IS NOT NULL) AS n FROM ${database}.conversation_items FINAL`,
    )
    const [fromRollup] = await queryRows<{ n: number; sessions: number }>(
      clickhouse,
      `SELECT sum(e2e_latency_count) AS n, uniqExact(session_id) AS sessions FROM ${database}.agent_latency_minute FINAL`,
    )
    const expected = expectedRows(sent).agent_latency_feed
    expect(fromRollup!.n).toBe(
      expected.reduce(
        (sum, row) => sum + row.e2e_latency_unflagged.length + row.e2e_latency_flagged.length,
        0,
      ),
    )
    expect(fromRollup!.n).toBe(fromItems!.n)
    expect(await countFinal(clickhouse, 'agent_latency_minute')).toBe(expected.length)
    const [view] = await queryRows<{ samples: number }>(
      clickhouse,
      `SELECT sum(e2e_latency_samples) AS samples FROM ${database}.agent_latency_per_minute`,
    )
    expect(view!.samples).toBe(fromItems!.n)
  })

  it('serves /metrics and /healthz', async () => {
    const health = await fetch(`${worker.metricsUrl}/healthz`)
    expect(health.status).toBe(200)
    const metrics = await (await fetch(`${worker.metricsUrl}/metrics`)).text()
    expect(metrics).toMatch(
      new RegExp(`worker_messages_consumed_total\\{outcome="inserted",service="worker"\\} ${sent.length}`),
    )
    expect(metrics).toMatch(/worker_rows_inserted_total\{table="conversation_items",service="worker"\} \d+/)
    expect(metrics).toMatch(/worker_consumer_lag\{topic="[^"]+",partition="\d",service="worker"\} 0/)
  })
})
