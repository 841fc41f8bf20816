import { beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { mergeRows } from '../../services/worker/write/batch-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import { databaseBeforeMigration, migrateThrough, runMigrationAgain } from './migration-test-support.ts'

// Migration 0020 adds where a conversation came from: rows stored before read as webhook
// conversations, the worker's rows land with their origin (a webhook's: 'webhook' and NULLs; an
// assembled one's: otlp, framework, mapping, trace id), and a second run changes nothing.
describe('migration 0020 on an existing database', () => {
  const opened = databaseBeforeMigration(20)
  let client: ClickHouseClient
  const origins = () =>
    queryRows<Record<string, unknown>>(
      client,
      `SELECT session_id, origin_kind, origin_framework, origin_mapping, origin_trace_id, origin_complete
         FROM ${database}.conversations FINAL ORDER BY session_id`,
    )

  beforeAll(async () => {
    client = opened.client
    await client.command({
      query: `INSERT INTO ${database}.conversations (session_id, event_time, agent_id, source, version, is_deleted, event, kafka_topic)
        VALUES ('before-1', '2026-11-01 10:00:00', 'agent-a', 'prod', 1, 0, 'ConversationComplete', 't')`,
    })
  })

  it('adds the origin columns after config_fingerprint; rows before are webhook conversations', async () => {
    await migrateThrough(client, 20)
    const columns = await queryRows<{ name: string; type: string }>(
      client,
      `SELECT name, type FROM system.columns WHERE database = '${database}' AND table = 'conversations'
         AND (name LIKE 'origin_%' OR name = 'config_fingerprint') ORDER BY position`,
    )
    expect(columns.map(({ name, type }) => [name, type])).toEqual([
      ['config_fingerprint', 'Nullable(String)'],
      ['origin_kind', 'LowCardinality(String)'],
      ['origin_framework', 'LowCardinality(Nullable(String))'],
      ['origin_framework_version', 'LowCardinality(Nullable(String))'],
      ['origin_mapping', 'LowCardinality(Nullable(String))'],
      ['origin_trace_id', 'Nullable(String)'],
      ['origin_complete', 'Nullable(Bool)'],
    ])
    expect(await origins()).toEqual([
      {
        session_id: 'before-1',
        origin_kind: 'webhook',
        origin_framework: null,
        origin_mapping: null,
        origin_trace_id: null,
        origin_complete: null,
      },
    ])
  })

  it('stores the worker rows with their origin', async () => {
    const [webhook, assembled] = generateConversations({ count: 2, seed: 20, historyItems: 6 })
    const origin = {
      kind: 'otlp',
      framework: 'pipecat',
      framework_version: null,
      mapping: 'pipecat-1.x',
      trace_id: '0af7651916cd43dd8448eb211c80319c',
      complete: true,
    }
    const rows = mergeRows(
      [
        toAvroRecord(webhook!, { source: 'prod', receivedAt: 1 }),
        toAvroRecord(assembled!, { source: 'bot', receivedAt: 1, origin }),
      ].map((record, offset) => ({
        rows: conversationRows(record, { topic: 't', partition: 0, offset, timestampMs: 1 }),
      })),
    )
    await insertTableRows(client, database, rows, 'test-0020')
    const stored = new Map((await origins()).map((row) => [row.session_id, row]))
    expect(stored.get(webhook!.data.session_id)).toMatchObject({
      origin_kind: 'webhook',
      origin_mapping: null,
    })
    expect(stored.get(assembled!.data.session_id)).toMatchObject({
      origin_kind: 'otlp',
      origin_framework: 'pipecat',
      origin_mapping: 'pipecat-1.x',
      origin_trace_id: origin.trace_id,
      origin_complete: true,
    })
  })

  it('changes nothing when it runs again', async () => {
    const stored = await origins()
    await runMigrationAgain(client, 20)
    expect(await origins()).toEqual(stored)
  })
})
