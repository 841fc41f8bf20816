import { beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import { databaseBeforeMigration, migrateThrough, runMigrationAgain } from './migration-test-support.ts'

// Migration 0005 adds metric_flags to conversation_items and flagged_item_count to conversations
// (#14): a database made by 0001-0004 and holding rows keeps them, and those rows, never checked,
// read as unflagged ([] and 0). Running its statements again (a run cut short) does no harm.
describe('migration 0005 on an existing database', () => {
  const opened = databaseBeforeMigration(5)
  let client: ClickHouseClient

  const snapshot = async () => ({
    conversations: await queryRows(
      client,
      `SELECT session_id, version, status, flagged_item_count FROM ${database}.conversations FINAL ORDER BY ALL`,
    ),
    items: await queryRows(
      client,
      `SELECT session_id, item_index, content, metric_flags FROM ${database}.conversation_items FINAL ORDER BY ALL`,
    ),
  })

  beforeAll(async () => {
    client = opened.client
    await client.command({
      query: `INSERT INTO ${database}.conversations (session_id, event_time, agent_id, status, version)
        SETTINGS insert_deduplication_token = 'test-0005-conversations'
        VALUES ('s1', '2026-04-01 08:00:00', 'a', 'done', 1)`,
    })
    await client.command({
      query: `INSERT INTO ${database}.conversation_items (session_id, item_index, event_time, agent_id, content, version)
        SETTINGS insert_deduplication_token = 'test-0005-items'
        VALUES ('s1', 0, '2026-04-01 08:00:00', 'a', 'hello', 1), ('s1', 1, '2026-04-01 08:00:00', 'a', 'bye', 1)`,
    })
  })

  const unflagged = {
    conversations: [{ session_id: 's1', version: 1, status: 'done', flagged_item_count: 0 }],
    items: [
      { session_id: 's1', item_index: 0, content: 'hello', metric_flags: [] },
      { session_id: 's1', item_index: 1, content: 'bye', metric_flags: [] },
    ],
  }

  it('keeps every row, which reads as unflagged, and adds the columns with their types', async () => {
    const report = await migrateThrough(client, 5)
    expect(report.applied.map((migration) => migration.version)).toEqual([5])
    expect(await snapshot()).toEqual(unflagged)
    const columns = await queryRows<{ table: string; name: string; type: string }>(
      client,
      `SELECT table, name, type FROM system.columns WHERE database = '${database}'
        AND name IN ('metric_flags', 'flagged_item_count') ORDER BY table`,
    )
    expect(columns).toEqual([
      { table: 'conversation_items', name: 'metric_flags', type: 'Array(LowCardinality(String))' },
      { table: 'conversations', name: 'flagged_item_count', type: 'UInt32' },
    ])
  })

  it('runs again without harm', async () => {
    await runMigrationAgain(client, 5)
    expect(await snapshot()).toEqual(unflagged)
  })
})
