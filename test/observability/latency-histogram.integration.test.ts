import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { loadMigrations, runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import {
  histogramCount,
  histogramQuantile,
  histogramRelativeError,
  mergedHistogram,
} from '../../dashboards/src/latency-histogram.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { mergeRows } from '../../services/worker/write/batch-rows.ts'
import { insertRowsAndHourRollup } from '../../services/worker/write/clickhouse-insert.ts'
import { withImpossibleMetrics } from '../fixtures/impossible-metrics.ts'
import { loadFixture } from '../fixtures/index.ts'
import { database, embeddedClickHouse, queryRows, tempDataDir } from '../support/embedded-clickhouse.ts'

// The percentiles the panels read from the rollups' histograms (migration 0008) against quantileExact
// over the item rows they summarise, per agent, for the rank quantileExact takes: within the
// documented relative error (1.02^0.5 - 1, just under 1 %), flagged values (negative and huge ones
// too) left out or taken in as $include_flagged says. Counts are exact.
const levels = [0, 0.25, 0.5, 0.9, 0.95, 0.99, 1]

describe('percentiles from the rollups’ histograms', () => {
  const data = tempDataDir('latency-histogram')
  let client: ClickHouseClient

  beforeAll(async () => {
    client = embeddedClickHouse(data.dir)
    await runMigrations(client, database, loadMigrations(database))
    const events = [
      ...generateConversations({ count: 120, seed: 14 }),
      ...[1, 2, 3].map((n) => withImpossibleMetrics(loadFixture('full'), `histogram-${n}`).event),
    ]
    const rows = mergeRows(
      events.map((event, offset) => ({
        rows: conversationRows(toAvroRecord(event, { source: 'prod', receivedAt: 1 }), {
          topic: 't',
          partition: 0,
          offset,
          timestampMs: 1,
        }),
      })),
    )
    await insertRowsAndHourRollup(client, database, rows, 'test-latency-histogram')
  })
  afterAll(async () => {
    await client?.close()
    data.remove()
  })

  const compare = async (rollup: string, metric: string, includeFlagged: 0 | 1) => {
    const histogram = mergedHistogram(metric, undefined, String(includeFlagged))
    const fromRollup = await queryRows<Record<string, number | string>>(
      client,
      `SELECT agent_id, ${histogramCount(histogram)} AS n,
          ${levels.map((level, index) => `${histogramQuantile(level, histogram)} AS q${index}`).join(', ')}
        FROM ${database}.${rollup} FINAL GROUP BY agent_id HAVING n > 0 ORDER BY agent_id`,
    )
    const exact = await queryRows<Record<string, number | string>>(
      client,
      `SELECT agent_id, count() AS n,
          ${levels.map((level, index) => `quantileExact(${level})(${metric}) AS q${index}`).join(', ')}
        FROM ${database}.conversation_items FINAL
        WHERE ${metric} IS NOT NULL AND (${includeFlagged} = 1 OR empty(metric_flags))
        GROUP BY agent_id ORDER BY agent_id`,
    )
    expect(fromRollup.map((row) => [row.agent_id, Number(row.n)])).toEqual(
      exact.map((row) => [row.agent_id, Number(row.n)]),
    )
    let compared = 0
    exact.forEach((want, row) => {
      levels.forEach((level, index) => {
        const wanted = Number(want[`q${index}`])
        const got = Number(fromRollup[row]![`q${index}`])
        const where = `${rollup} ${metric} ${want.agent_id} p${level * 100} flagged=${includeFlagged}`
        expect(Math.sign(got), where).toBe(Math.sign(wanted))
        expect(Math.abs(got - wanted), where).toBeLessThanOrEqual(
          histogramRelativeError * Math.abs(wanted) + 1e-12,
        )
        compared++
      })
    })
    expect(compared).toBeGreaterThan(10)
  }

  it('per conversation rollup, end-to-end latency: within 1 %, counts exact', async () => {
    await compare('conversation_latency', 'e2e_latency', 0)
    await compare('conversation_latency', 'e2e_latency', 1)
  })

  it('per-minute rollup, every metric: within 1 %, counts exact', async () => {
    for (const metric of [
      'e2e_latency',
      'llm_node_ttft',
      'tts_node_ttfb',
      'transcription_delay',
      'end_of_turn_delay',
    ])
      for (const flagged of [0, 1] as const) await compare('agent_latency_minute', metric, flagged)
  })

  it('holds flagged values the clean histograms leave out, negative ones below zero', async () => {
    const [row] = await queryRows<{ flagged: number; negative: number; negative_clean: number }>(
      client,
      `SELECT sum(arraySum(e2e_latency_flagged_bucket_counts)) AS flagged,
          sum(arrayCount(b -> b < 0, transcription_delay_flagged_buckets)) AS negative,
          sum(arrayCount(b -> b < 0, transcription_delay_unflagged_buckets)) AS negative_clean
        FROM ${database}.agent_latency_minute FINAL`,
    )
    expect(Number(row!.flagged)).toBeGreaterThan(0)
    // One negative transcription delay (-0.25 s) in each of the three altered conversations.
    expect(Number(row!.negative)).toBe(3)
    expect(Number(row!.negative_clean)).toBe(0)
  })

  it('refuses a level outside 0..1', () => {
    expect(() => histogramQuantile(1.5, 'h')).toThrow(/within 0..1/)
  })
})
