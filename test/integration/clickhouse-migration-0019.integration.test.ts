import { beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { mergeRows } from '../../services/worker/write/batch-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import { databaseBeforeMigration, migrateThrough, runMigrationAgain } from './migration-test-support.ts'

// Migration 0019 adds each conversation's agent configuration fingerprint and the table of what the
// fingerprints stand for: rows stored before keep every value and have no fingerprint (NULL), the
// worker's rows then land with theirs, one agent_versions row per agent and fingerprint however often
// they are written, and a second run changes nothing.
describe('migration 0019 on an existing database', () => {
  const opened = databaseBeforeMigration(19)
  let client: ClickHouseClient

  const schema = () =>
    queryRows<{ table: string; name: string; type: string; position: number }>(
      client,
      `SELECT table, name, type, position FROM system.columns
        WHERE database = '${database}' AND (table = 'agent_versions' OR name IN ('speech_left_out', 'config_fingerprint'))
        ORDER BY table, position`,
    )
  const fingerprints = () =>
    queryRows<{ session_id: string; config_fingerprint: string | null }>(
      client,
      `SELECT session_id, config_fingerprint FROM ${database}.conversations FINAL ORDER BY session_id`,
    )

  beforeAll(async () => {
    client = opened.client
    await client.command({
      query: `INSERT INTO ${database}.conversations (session_id, event_time, agent_id, source, version, is_deleted, event, kafka_topic)
        VALUES ('before-1', '2026-11-01 10:00:00', 'agent-a', 'prod', 1, 0, 'ConversationComplete', 't'),
               ('before-2', '2026-11-01 11:00:00', 'agent-a', 'prod', 1, 0, 'ConversationComplete', 't')`,
    })
  })

  it('adds the fingerprint after the turn-taking columns and the versions table; rows before have none', async () => {
    expect((await schema()).map((column) => column.name)).toEqual(['speech_left_out'])
    await migrateThrough(client, 19)
    const columns = await schema()
    const conversations = columns.filter((column) => column.table === 'conversations')
    expect(conversations.map(({ name, type }) => [name, type])).toEqual([
      ['speech_left_out', 'UInt32'],
      ['config_fingerprint', 'Nullable(String)'],
    ])
    expect(conversations[1]!.position).toBe(conversations[0]!.position + 1)
    expect(
      columns.filter((column) => column.table === 'agent_versions').map(({ name, type }) => [name, type]),
    ).toEqual([
      ['agent_id', 'String'],
      ['config_fingerprint', 'String'],
      ['instructions', 'String'],
      ['update_instructions', 'Array(String)'],
      ['tools', 'Array(String)'],
      ['handoff_targets', 'Array(String)'],
    ])
    expect(await fingerprints()).toEqual([
      { session_id: 'before-1', config_fingerprint: null },
      { session_id: 'before-2', config_fingerprint: null },
    ])
  })

  it('stores the worker rows with their fingerprints, one version row per agent and fingerprint', async () => {
    const events = generateConversations({ count: 30, seed: 19, historyItems: 12 })
    const rowsOf = (receivedAt: number) =>
      mergeRows(
        events.map((event, offset) => ({
          rows: conversationRows(toAvroRecord(event, { source: 'prod', receivedAt }), {
            topic: 't',
            partition: 0,
            offset,
            timestampMs: receivedAt,
          }),
        })),
      )
    const rows = rowsOf(1)
    // Today's rows also carry the origin columns of 0020.
    await runMigrationAgain(client, 20)
    // The same conversations delivered again (another token, a later version): nothing counts twice.
    await insertTableRows(client, database, rows, 'test-0019-first')
    await insertTableRows(client, database, rowsOf(2), 'test-0019-again')
    const stored = await fingerprints()
    expect(stored).toHaveLength(32)
    const bySession = new Map(rows.conversations.map((row) => [row.session_id, row.config_fingerprint]))
    for (const { session_id, config_fingerprint } of stored.filter((row) => bySession.has(row.session_id)))
      expect(config_fingerprint, session_id).toBe(bySession.get(session_id))
    const keys = new Set(rows.agent_versions.map((row) => `${row.agent_id} ${row.config_fingerprint}`))
    expect(keys.size).toBeGreaterThan(1)
    expect(keys.size).toBeLessThan(rows.agent_versions.length)
    const versions = await queryRows<{ key: string; tools: string[] }>(
      client,
      `SELECT concat(agent_id, ' ', config_fingerprint) AS key, tools FROM ${database}.agent_versions FINAL ORDER BY key`,
    )
    expect(versions.map((row) => row.key)).toEqual([...keys].sort())
  })

  it('changes nothing when it runs again', async () => {
    const columns = await schema()
    const stored = await fingerprints()
    await runMigrationAgain(client, 19)
    expect(await schema()).toEqual(columns)
    expect(await fingerprints()).toEqual(stored)
  })
})
