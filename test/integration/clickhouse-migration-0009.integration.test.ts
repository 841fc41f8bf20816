import { beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { conversationTables } from '../../core/clickhouse/clickhouse-retention.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { mergeRows } from '../../services/worker/write/batch-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import {
  databaseBeforeMigration,
  fitTodaysRows,
  migrateThrough,
  runMigrationAgain,
} from './migration-test-support.ts'

// Migration 0009 (#23): codecs that make the base tables smaller, applied to the parts already
// stored, and test_results sorted by time first so that a 24-hour panel reads that day, not the
// month. A database made by the migrations before it keeps exactly the rows FINAL showed; running
// the statements again does no harm.
const baseTables = conversationTables

describe('migration 0009 on an existing database', () => {
  const opened = databaseBeforeMigration(9)
  let client: ClickHouseClient
  const snapshotBefore = new Map<string, unknown>()
  let dayRowsBefore = 0
  const testRows = 100_000

  /** What FINAL shows of a table: its row count and a hash of every column of every row. */
  const snapshot = async (table: string) =>
    (
      await queryRows(
        client,
        `SELECT count() AS rows, toString(sum(cityHash64(*))) AS hash FROM ${database}.${table} FINAL`,
      )
    )[0]
  // One day of test_results as the Agent tests dashboard asks for it (FINAL, a time range).
  const dayQuery = `SELECT count() FROM ${database}.test_results FINAL
    WHERE event_time >= toDateTime('2026-03-05 00:00:00', 'UTC') AND event_time < toDateTime('2026-03-06 00:00:00', 'UTC')`
  /** Rows the engine will read for the day: what the primary key leaves of the table (EXPLAIN ESTIMATE). */
  const dayRowsToRead = async () =>
    (await queryRows<{ rows: number }>(client, `EXPLAIN ESTIMATE ${dayQuery}`)).reduce(
      (sum, row) => sum + row.rows,
      0,
    )
  /** The active parts of the base tables, and the items' bytes on disk (small parts are compact: no per-column sizes). */
  const activeParts = async () =>
    queryRows<{ table: string; name: string; bytes: number }>(
      client,
      `SELECT table, name, bytes_on_disk AS bytes FROM system.parts
        WHERE database = '${database}' AND active AND table IN (${baseTables.map((table) => `'${table}'`).join(', ')})`,
    )
  let partsBefore: Awaited<ReturnType<typeof activeParts>> = []
  const itemBytes = (parts: typeof partsBefore) =>
    parts.filter((part) => part.table === 'conversation_items').reduce((sum, part) => sum + part.bytes, 0)

  beforeAll(async () => {
    client = opened.client
    await fitTodaysRows(client)
    // Conversations of ten days of March through the worker's transform and insert, a tenth twice.
    const events = generateConversations({
      count: 300,
      seed: 9,
      from: Date.parse('2026-03-01T00:00:00Z'),
      spanHours: 240,
      historyItems: 20,
      testRunRate: 0.3,
      campaignRate: 0.3,
    })
    const deliveries = [...events, ...events.slice(0, 30)].map((event, offset) => ({
      rows: conversationRows(
        toAvroRecord(event, { source: 'prod', receivedAt: Date.parse('2026-03-12T00:00:00Z') + offset }),
        {
          topic: 'test-0009',
          partition: 0,
          offset,
          timestampMs: Date.parse('2026-03-12T00:00:00Z'),
        },
      ),
    }))
    for (let start = 0; start < deliveries.length; start += 100)
      await insertTableRows(
        client,
        database,
        mergeRows(deliveries.slice(start, start + 100)),
        `test-0009-${start}`,
      )
    // Enough test results over the ten days for the primary key to matter: one every 8.64 s.
    await client.command({
      query: `INSERT INTO ${database}.test_results (test_run_id, test_id, session_id, event_time, agent_id, source, version)
        SETTINGS insert_deduplication_token = 'test-0009-results'
        SELECT concat('run-', toString(number % 40)), concat('test-', toString(number % 7)), concat('session-', toString(number)),
          toDateTime64('2026-03-01 00:00:00', 3, 'UTC') + toIntervalMillisecond(number * 8640), 'agent-1', 'prod', 1
        FROM numbers(${testRows})`,
    })
    for (const table of baseTables) snapshotBefore.set(table, await snapshot(table))
    dayRowsBefore = await dayRowsToRead()
    partsBefore = await activeParts()
    await migrateThrough(client, 9)
  })

  it('made a 24-hour query on test_results read the whole table before it', () => {
    expect(dayRowsBefore).toBeGreaterThanOrEqual(testRows)
  })

  it('lets a 24-hour query on test_results read about that day (10,000 of 100,000 rows), with the same answer', async () => {
    const rows = await dayRowsToRead()
    expect(rows).toBeGreaterThanOrEqual(10_000)
    expect(rows).toBeLessThan(10_000 + 3 * 8192)
    const [count] = await queryRows<Record<string, number>>(client, dayQuery)
    expect(Object.values(count!)[0]).toBeGreaterThanOrEqual(10_000)
  })

  it('keeps exactly the rows FINAL showed in every base table', async () => {
    for (const table of baseTables) expect(await snapshot(table), table).toEqual(snapshotBefore.get(table))
  })

  it('gives every column of the base tables a ZSTD codec and rewrites the stored parts with it', async () => {
    const plain = await queryRows<{ table: string; name: string }>(
      client,
      `SELECT table, name FROM system.columns WHERE database = '${database}'
        AND table IN (${baseTables.map((table) => `'${table}'`).join(', ')})
        AND name != 'is_deleted' AND compression_codec NOT LIKE '%ZSTD%'`,
    )
    expect(plain).toEqual([])
    const partsAfter = await activeParts()
    const names = new Set(partsBefore.map((part) => `${part.table}/${part.name}`))
    // No part stored before is still active (test_results is a new table: its part names start again).
    const kept = partsAfter.filter(
      (part) => part.table !== 'test_results' && names.has(`${part.table}/${part.name}`),
    )
    expect(kept).toEqual([])
    expect(itemBytes(partsAfter)).toBeLessThan(itemBytes(partsBefore) * 0.8)
  })

  it('can run its statements again without harm', async () => {
    await runMigrationAgain(client, 9)
    for (const table of baseTables) expect(await snapshot(table), table).toEqual(snapshotBefore.get(table))
    const [key] = await queryRows<{ sorting_key: string }>(
      client,
      `SELECT sorting_key FROM system.tables WHERE database = '${database}' AND name = 'test_results'`,
    )
    expect(key!.sorting_key).toBe('event_time, test_run_id, test_id, session_id')
  })
})
