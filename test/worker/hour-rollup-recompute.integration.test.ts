import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ClickHouseClient, createClickHouse } from '../../services/core/clickhouse.ts'
import { runMigrations } from '../../services/core/clickhouse-migrations.ts'
import { toAvroRecord } from '../../services/core/event/event-record.ts'
import { createMetricsRegistry } from '../../services/core/metrics.ts'
import { generateConversations } from '../../services/synthetic/conversation-generator.ts'
import { mergeRows } from '../../services/worker/batch-rows.ts'
import { insertTableRows } from '../../services/worker/clickhouse-insert.ts'
import { conversationRows } from '../../services/worker/conversation-rows.ts'
import { createNewestDeliveryWrite } from '../../services/worker/stored-conversations.ts'
import type { TableRows } from '../../services/worker/table-rows.ts'
import { database, hourRollupMismatches, queryRows, testLogger } from './worker-test-support.ts'

// The hour rollup (latency-hour-rollup.ts) through the worker's own write (the newest-delivery plan,
// its insert, then the recompute), on embedded ClickHouse: a write whose rows landed but whose
// recompute never ran (a crash between the two) is made right when its messages come again, though
// the plan then writes nothing; a re-delivery that moves a conversation to other hours leaves
// nothing of it in the hours it left.
const dataDir = mkdtempSync(join(tmpdir(), 'va-hour-rollup-'))
let client: ClickHouseClient

const events = generateConversations({ count: 12, seed: 31 })
const rowsOf = (list: typeof events, version: number, firstOffset: number): TableRows =>
  mergeRows(
    list.map((event, index) => ({
      rows: conversationRows(toAvroRecord(event, { source: 'prod', receivedAt: version }), {
        topic: 'hour-rollup',
        partition: 0,
        offset: firstOffset + index,
        timestampMs: version,
      }),
    })),
  )

/**
 * The worker's write of these rows; `crash`: the rows land (the plan's, tombstones included) and the
 * process dies before the hour rollup is recomputed.
 */
function newestDeliveryWrite() {
  const config = {
    CLICKHOUSE_DATABASE: database,
    METRICS_AGENT_ALLOWLIST: '',
    METRICS_AGENT_LIMIT: 50,
    METRICS_LABEL_VALUE_LIMIT: 50,
    METRICS_LIVE_WINDOW_SECONDS: 3600,
  }
  const newest = createNewestDeliveryWrite(client, config, createMetricsRegistry('worker-test'), testLogger())
  return (rows: TableRows, token: string, crash = false) =>
    newest.write(rows, async (planned, digest) => {
      const writes = await insertTableRows(client, database, planned, `${token}:${digest}`)
      if (crash) throw new Error('crashed before the recompute')
      return writes
    })
}

const hourTurns = async () =>
  Number(
    (
      await queryRows<{ turns: number }>(
        client,
        `SELECT sum(e2e_latency_unflagged_count + e2e_latency_flagged_count) AS turns FROM ${database}.agent_latency_hour FINAL`,
      )
    )[0]!.turns,
  )

beforeAll(async () => {
  client = createClickHouse({
    CLICKHOUSE_DATA_DIR: dataDir,
    CLICKHOUSE_USER: 'default',
    CLICKHOUSE_PASSWORD: '',
  })
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` })
  await runMigrations(client, database)
})

afterAll(async () => {
  await client?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('the hour rollup through the worker write', () => {
  it('is recomputed when the messages of a write whose recompute never ran come again', async () => {
    const rows = rowsOf(events, 1, 0)
    await expect(newestDeliveryWrite()(rows, 'first', true)).rejects.toThrow(/crashed/)
    expect(await hourRollupMismatches(client), 'the hours are missing').toBeGreaterThan(0)
    // The same messages again (their offsets were not committed).
    await newestDeliveryWrite()(rows, 'first')
    expect(await hourRollupMismatches(client)).toBe(0)
    expect(await hourTurns()).toBeGreaterThan(0)
  })

  it('keeps nothing of a conversation in the hours a newer delivery moved it out of', async () => {
    const before = await hourTurns()
    // Every time of three conversations six hours later (ISO times in fields named *_at).
    const later = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(later)
      if (value === null || typeof value !== 'object') return value
      return Object.fromEntries(
        Object.entries(value).map(([key, field]) => [
          key,
          key.endsWith('_at') && typeof field === 'string'
            ? new Date(Date.parse(field) + 6 * 3600_000).toISOString()
            : later(field),
        ]),
      )
    }
    const moved = events.slice(0, 3).map((event) => later(event) as (typeof events)[number])
    // The newer delivery lands, tombstones included, and the worker dies before the recompute ...
    const newer = rowsOf(moved, 2, 100)
    await expect(newestDeliveryWrite()(newer, 'moved', true)).rejects.toThrow(/crashed/)
    expect(await hourRollupMismatches(client), 'the hours it left still count it').toBeGreaterThan(0)
    // ... and reads it again after the restart: the plan writes its rows again, no tombstone.
    await newestDeliveryWrite()(newer, 'moved')
    expect(await hourRollupMismatches(client)).toBe(0)
    expect(await hourTurns(), 'the same turns, in other hours').toBe(before)
    const hours = await queryRows<{ hour: string }>(
      client,
      `SELECT DISTINCT toString(hour) AS hour FROM ${database}.agent_latency_hour FINAL ORDER BY hour`,
    )
    expect(hours.length).toBeGreaterThan(1)
  })
})
