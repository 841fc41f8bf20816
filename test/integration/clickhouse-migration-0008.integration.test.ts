import { beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { mergeRows } from '../../services/worker/write/batch-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { withImpossibleMetrics } from '../fixtures/impossible-metrics.ts'
import { loadFixture } from '../fixtures/index.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import type { Sent } from '../support/produce-events.ts'
import { expectStoredRowsEqual } from '../support/stored-rows.ts'
import {
  databaseBeforeMigration,
  fitTodaysRows,
  migrateThrough,
  runMigrationAgain,
} from './migration-test-support.ts'

// Migration 0008 rebuilds the latency rollup with histograms instead of t-digest states and adds the
// per-conversation rollup, both from the base tables read with FINAL: afterwards both hold exactly
// what the worker's feeds would have written for the stored conversations (the newest delivery of
// each, flagged values apart), and a rollup row whose conversation the base tables no longer hold
// is gone. Running its statements again does no harm.
describe('migration 0008 on an existing database', () => {
  const opened = databaseBeforeMigration(8)
  let client: ClickHouseClient
  const sent: Sent[] = [
    ...generateConversations({ count: 40, seed: 8 }),
    withImpossibleMetrics(loadFixture('full'), '0008').event,
  ].map((event) => ({ event, record: toAvroRecord(event, { source: 'prod', receivedAt: 1 }) }))

  const rollupRows = () =>
    queryRows<Record<string, unknown>>(
      client,
      `SELECT * FROM (SELECT 'minute' AS rollup, count() AS rows, sum(e2e_latency_count) AS e2e, sum(e2e_latency_unflagged_count) AS clean,
          sum(arraySum(e2e_latency_unflagged_bucket_counts)) AS clean_in_buckets,
          sum(arraySum(e2e_latency_flagged_bucket_counts)) AS flagged_in_buckets
        FROM ${database}.agent_latency_minute FINAL
        UNION ALL
        SELECT 'conversation', count(), sum(e2e_latency_unflagged_count + e2e_latency_flagged_count),
          sum(e2e_latency_unflagged_count), sum(arraySum(e2e_latency_unflagged_bucket_counts)),
          sum(arraySum(e2e_latency_flagged_bucket_counts))
        FROM ${database}.conversation_latency FINAL)
        ORDER BY rollup`,
    )

  beforeAll(async () => {
    client = opened.client
    await fitTodaysRows(client)
    // The base tables as the worker wrote them; the rollup's feed of then had other columns.
    const rows = mergeRows(
      sent.map(({ record }, offset) => ({
        rows: conversationRows(record, { topic: 't', partition: 0, offset, timestampMs: 1 }),
      })),
    )
    rows.agent_latency_feed = []
    rows.conversation_latency_feed = []
    await insertTableRows(client, database, rows, 'test-0008-base')
    // A rollup row of the old shape (t-digest states), for a conversation no base table holds.
    await client.command({
      query: `INSERT INTO ${database}.agent_latency_feed (agent_id, minute, session_id, source, version, e2e_latency, llm_node_ttft, tts_node_ttfb, transcription_delay, end_of_turn_delay)
        SETTINGS insert_deduplication_token = 'test-0008-old-rollup'
        VALUES ('a', '2026-04-01 08:00:00', 'gone', 'prod', 1, [0.8], [0.2], [0.1], [], [0.3])`,
    })
  })

  it('rebuilds the latency rollup with histograms and fills the per-conversation rollup from the base tables', async () => {
    const report = await migrateThrough(client, 8)
    expect(report.applied.map((migration) => migration.version)).toEqual([8])
    // Keys, counts, maxima and breakdown columns of both rollups: what the worker's feeds make of the data.
    await expectStoredRowsEqual(client, sent, (actual, message) => expect(actual, message))
    const [conversation, minute] = await rollupRows()
    // Every value in exactly one histogram; the fixture's flagged values in the flagged one.
    expect(Number(minute!.clean_in_buckets) + Number(minute!.flagged_in_buckets)).toBe(Number(minute!.e2e))
    expect(Number(minute!.flagged_in_buckets)).toBeGreaterThan(0)
    expect(conversation).toEqual({ ...minute, rollup: 'conversation', rows: conversation!.rows })
    expect(Number(conversation!.rows)).toBe(sent.length)
    const [gone] = await queryRows<{ n: number }>(
      client,
      `SELECT count() AS n FROM ${database}.agent_latency_minute FINAL WHERE session_id = 'gone'`,
    )
    expect(Number(gone!.n)).toBe(0)
  })

  it('runs again without harm', async () => {
    const stored = await rollupRows()
    await runMigrationAgain(client, 8)
    expect(await rollupRows()).toEqual(stored)
    await expectStoredRowsEqual(client, sent, (actual, message) => expect(actual, message))
  })
})
