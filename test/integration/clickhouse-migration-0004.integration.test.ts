import { beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { conversationTables } from '../../core/clickhouse/clickhouse-retention.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import { databaseBeforeMigration, migrateThrough, runMigrationAgain } from './migration-test-support.ts'

// Migration 0004 rebuilds every versioned table as ReplacingMergeTree(version, is_deleted): a
// database made by 0001-0003 and holding rows keeps them (as FINAL shows them), gains the new
// engine, and tombstones then hide rows. Running its statements again (a run cut short) does no harm.
// (chDB keeps an insert's settings for its session, e.g. the runner's last deduplication token: the
// test's own inserts name theirs.)
describe('migration 0004 on an existing database', () => {
  const opened = databaseBeforeMigration(4)
  let client: ClickHouseClient
  // The rollup that existed then (conversation_latency came with 0008).
  const versioned = [...conversationTables, 'agent_latency_minute']

  const snapshot = async () => ({
    conversations: await queryRows(
      client,
      `SELECT session_id, agent_id, toUnixTimestamp64Milli(event_time) AS event_time, version, status
        FROM ${database}.conversations FINAL ORDER BY session_id`,
    ),
    items: await queryRows(
      client,
      `SELECT session_id, item_index, version, content FROM ${database}.conversation_items FINAL ORDER BY ALL`,
    ),
    rollup: await queryRows(
      client,
      `SELECT agent_id, minute, session_id, e2e_latency_count FROM ${database}.agent_latency_minute FINAL ORDER BY ALL`,
    ),
  })

  beforeAll(async () => {
    client = opened.client
    const insert = (query: string) => client.command({ query })
    // Two deliveries of s1 under one key (the newer wins), s2 keyed by its time of receipt.
    await insert(`INSERT INTO ${database}.conversations (session_id, event_time, agent_id, start_time, status, version)
      VALUES ('s1', '2026-04-01 08:00:00', 'a', '2026-04-01 08:00:00', 'old', 1),
             ('s1', '2026-04-01 08:00:00', 'a', '2026-04-01 08:00:00', 'new', 2),
             ('s2', '2026-04-02 09:00:00', 'a', NULL, 'only', 1)`)
    await insert(`INSERT INTO ${database}.conversation_items (session_id, item_index, event_time, agent_id, content, version)
      VALUES ('s1', 0, '2026-04-01 08:00:00', 'a', 'hello', 2), ('s1', 1, '2026-04-01 08:00:00', 'a', 'bye', 2)`)
    await insert(`INSERT INTO ${database}.agent_latency_feed (agent_id, minute, session_id, source, version, e2e_latency,
        llm_node_ttft, tts_node_ttfb, transcription_delay, end_of_turn_delay)
      VALUES ('a', '2026-04-01 08:00:00', 's1', 'prod', 2, [0.5, 0.7], [], [], [], [])`)
  })

  let before: Awaited<ReturnType<typeof snapshot>>

  it('keeps every row FINAL shows and gives every versioned table the new engine', async () => {
    before = await snapshot()
    expect(before.conversations).toHaveLength(2)
    // Up to 0004 only: 0008 rebuilds the rollup from the items (its own test).
    const report = await migrateThrough(client, 4)
    expect(report.applied.map((migration) => migration.version)).toContain(4)
    expect(await snapshot()).toEqual(before)
    const engines = await queryRows<{ name: string; engine_full: string }>(
      client,
      `SELECT name, engine_full FROM system.tables WHERE database = '${database}' AND name IN (${versioned
        .map((table) => `'${table}'`)
        .join(', ')}) ORDER BY name`,
    )
    expect(engines).toHaveLength(versioned.length)
    for (const { name, engine_full } of engines)
      expect(engine_full, name).toMatch(/^ReplacingMergeTree\(version, is_deleted\)/)
    const sources = await queryRows<{ session_id: string; event_time_source: string }>(
      client,
      `SELECT session_id, event_time_source FROM ${database}.conversations FINAL ORDER BY session_id`,
    )
    expect(sources).toEqual([
      { session_id: 's1', event_time_source: 'start_time' },
      { session_id: 's2', event_time_source: 'received_at' },
    ])
  })

  it('runs again without harm', async () => {
    await runMigrationAgain(client, 4)
    expect(await snapshot()).toEqual(before)
  })

  it('hides a row under a tombstone, in base tables and through the rollup view', async () => {
    await client.command({
      query: `INSERT INTO ${database}.conversation_items (session_id, item_index, event_time, agent_id, version, is_deleted)
        SETTINGS insert_deduplication_token = 'test-tombstone-item' VALUES ('s1', 1, '2026-04-01 08:00:00', 'a', 3, 1)`,
    })
    await client.command({
      query: `INSERT INTO ${database}.agent_latency_feed (agent_id, minute, session_id, version, is_deleted,
          e2e_latency, llm_node_ttft, tts_node_ttfb, transcription_delay, end_of_turn_delay)
        SETTINGS insert_deduplication_token = 'test-tombstone-rollup' VALUES ('a', '2026-04-01 08:00:00', 's1', 3, 1, [], [], [], [], [])`,
    })
    const after = await snapshot()
    expect(after.items).toEqual(before.items.slice(0, 1))
    expect(after.rollup).toEqual([])
  })
})
