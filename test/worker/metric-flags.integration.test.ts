import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { metricFlagNames } from '../../services/worker/transform/metric-quality.ts'
import type { RunningWorker } from '../../services/worker/worker.ts'
import { type ImpossibleMetrics, withImpossibleMetrics } from '../fixtures/impossible-metrics.ts'
import { loadFixture, startedAgo } from '../fixtures/index.ts'
import { countFinal, database, queryRows } from '../support/embedded-clickhouse.ts'
import { committedTotal, produceEvents } from '../support/produce-events.ts'
import { waitFor } from '../support/wait-for.ts'
import { startWorkerFixture, type WorkerFixture } from '../support/worker-fixture.ts'
import { metricSum } from '../support/worker-metrics-reading.ts'

// Metric sanity at ingest (#14) end to end: conversations carrying impossible metrics go through
// real Kafka, the real registry and the worker into embedded ClickHouse. Every value is stored as
// it came, each item's flags land in metric_flags, each conversation's count in
// flagged_item_count, and voice_metric_flags_total counts each flagged item once, although one
// flagged conversation is delivered twice. The latency rollup holds every value in its all-values
// states and only unflagged ones in its unflagged states (migration 0006); the latency histograms
// observe only unflagged ones. The fixtures start 5 minutes ago, so that they are live and counted.
describe('worker: metric flags reach the columns and the counters', () => {
  let fixture: WorkerFixture
  let clickhouse: ClickHouseClient
  let worker: RunningWorker
  let flagged: ImpossibleMetrics[]
  const clean = startedAgo(loadFixture('web-call'))

  beforeAll(async () => {
    fixture = await startWorkerFixture('metric-flags', 2)
    const { kafka, topic, groupId, codec, producer } = fixture
    clickhouse = fixture.clickhouse
    flagged = [
      withImpossibleMetrics(startedAgo(loadFixture('campaign-call')), 'flagged'),
      withImpossibleMetrics(startedAgo(loadFixture('full')), 'flagged'),
    ]
    const events = [...flagged.map(({ event }) => event), clean, flagged[0]!.event]
    const base = Date.parse('2026-03-01T12:00:00Z')
    await produceEvents(producer, codec, topic, events, 'prod', (index) => base + index)
    worker = await fixture.startWorker()
    // Every message committed, the second delivery too: from then on the counters are final.
    await waitFor(
      () => committedTotal(kafka, groupId, topic),
      (n) => n === events.length,
      180_000,
      'commits',
    )
    expect(await countFinal(clickhouse, 'conversations')).toBe(3)
  })

  afterAll(async () => {
    await fixture?.stop()
  })

  it('stores each item flagged as the rule says, its values unchanged', async () => {
    for (const { event, flags } of flagged) {
      const items = await queryRows<{
        item_index: number
        metric_flags: string[]
        e2e_latency: number | null
      }>(
        clickhouse,
        `SELECT item_index, metric_flags, e2e_latency FROM ${database}.conversation_items FINAL
         WHERE session_id = '${event.data.session_id}' ORDER BY item_index`,
      )
      expect(items).toHaveLength(event.data.history!.length)
      for (const item of items) {
        expect(item.metric_flags, `${event.data.session_id} item ${item.item_index}`).toEqual(
          flags.get(item.item_index) ?? [],
        )
        // Kept as it came, to Float32's precision (measuredValue).
        const sent = event.data.history![item.item_index]!.metrics?.e2e_latency
        expect(item.e2e_latency).toBe(sent == null ? null : Math.fround(sent))
      }
    }
    const [cleanFlags] = await queryRows<{ n: number }>(
      clickhouse,
      `SELECT countIf(notEmpty(metric_flags)) AS n FROM ${database}.conversation_items FINAL
       WHERE session_id = '${clean.data.session_id}'`,
    )
    expect(Number(cleanFlags!.n)).toBe(0)
  })

  it('counts the flagged items of each conversation', async () => {
    const rows = await queryRows<{ session_id: string; flagged_item_count: number }>(
      clickhouse,
      `SELECT session_id, flagged_item_count FROM ${database}.conversations FINAL ORDER BY session_id`,
    )
    const expected = [
      ...flagged.map(({ event, flags }) => ({
        session_id: event.data.session_id,
        flagged_item_count: flags.size,
      })),
      { session_id: clean.data.session_id, flagged_item_count: 0 },
    ].sort((a, b) => (a.session_id < b.session_id ? -1 : 1))
    expect(rows).toEqual(expected)
  })

  it('counts each flagged item once per conversation in voice_metric_flags_total, by flag', async () => {
    const expected = new Map<string, number>()
    for (const { flags } of flagged)
      for (const itemFlags of flags.values())
        for (const flag of itemFlags) expected.set(flag, (expected.get(flag) ?? 0) + 1)
    const total = [...expected.values()].reduce((a, b) => a + b, 0)
    // Counted once the offsets are committed: poll until the total is reached, then compare each.
    await waitFor(
      () => metricSum(worker.metricsUrl!, 'voice_metric_flags_total{'),
      (n) => n >= total,
      60_000,
      'voice_metric_flags_total',
    )
    for (const flag of metricFlagNames)
      expect(await metricSum(worker.metricsUrl!, `voice_metric_flags_total{flag="${flag}"`), flag).toBe(
        expected.get(flag) ?? 0,
      )
    expect(await metricSum(worker.metricsUrl!, 'voice_metric_flags_total{')).toBe(total)
  })

  it('feeds the rollup every value, its unflagged states and the latency histograms only the unflagged ones', async () => {
    const events = [...flagged, { event: clean, flags: new Map() }]
    const count = (flaggedToo: boolean) =>
      events.reduce(
        (sum, { event, flags }) =>
          sum +
          event.data.history!.filter(
            (item, index) =>
              typeof item.metrics?.e2e_latency === 'number' && (flaggedToo || !flags.has(index)),
          ).length,
        0,
      )
    expect(count(true)).toBeGreaterThan(count(false)) // flagged values to leave out
    const [rollup] = await queryRows<{ all: number; unflagged: number }>(
      clickhouse,
      `SELECT sum(e2e_latency_count) AS all, sum(e2e_latency_unflagged_count) AS unflagged
       FROM ${database}.agent_latency_minute FINAL`,
    )
    expect(Number(rollup!.all)).toBe(count(true))
    expect(Number(rollup!.unflagged)).toBe(count(false))
    // Observed once the offsets are committed: poll until the count is reached, then compare.
    const observed = () => metricSum(worker.metricsUrl!, 'voice_e2e_latency_seconds_count{')
    await waitFor(observed, (n) => n >= count(false), 60_000, 'voice_e2e_latency_seconds_count')
    expect(await observed()).toBe(count(false))
  })
})
