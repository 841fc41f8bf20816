import { beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { measuredValue } from '../../services/worker/transform/clickhouse-values.ts'
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

// Migration 0016 rounds the measured values stored before it to Float32's precision, as the worker
// rounds what it writes now (measuredValue): every value of the rows stored before equals
// measuredValue of what was stored, nulls stay null, a magnitude beyond Float32 stays as it was, and
// a second run changes nothing.
const measured = [
  'transcript_confidence',
  'transcription_delay',
  'end_of_turn_delay',
  'on_user_turn_completed_delay',
  'llm_node_ttft',
  'tts_node_ttfb',
  'e2e_latency',
] as const
type StoredValues = { session_id: string; item_index: number } & Record<
  (typeof measured)[number],
  number | null
>

describe('migration 0016 on an existing database', () => {
  const opened = databaseBeforeMigration(16)
  let client: ClickHouseClient
  let before: StoredValues[]

  const stored = () =>
    queryRows<StoredValues>(
      client,
      `SELECT session_id, item_index, ${measured.join(', ')}
        FROM ${database}.conversation_items FINAL ORDER BY session_id, item_index`,
    )

  beforeAll(async () => {
    client = opened.client
    await fitTodaysRows(client)
    const sent = generateConversations({ count: 20, seed: 16 }).map((event) =>
      toAvroRecord(event, { source: 'prod', receivedAt: 1 }),
    )
    const rows = mergeRows(
      sent.map((record, offset) => ({
        rows: conversationRows(record, { topic: 't', partition: 0, offset, timestampMs: 1 }),
      })),
    )
    // As a worker before 0016 stored them: every digit that came (the worker rounds them now).
    rows.conversation_items.forEach((item, index) => {
      for (const name of measured) {
        const value = item[name]
        if (value !== null) item[name] = value * (1 + 1e-9) + 1e-12
      }
      if (index === 3) item.e2e_latency = 1e39
    })
    await insertTableRows(client, database, rows, 'test-0016-base')
    before = await stored()
  })

  it('rounds every stored value as the worker now rounds what it writes', async () => {
    const unrounded = before.flatMap((row) =>
      measured.filter((name) => row[name] !== null && row[name] !== Math.fround(row[name]!)),
    )
    expect(new Set(unrounded), 'every column held unrounded values').toEqual(new Set(measured))
    expect(before.some((row) => row.e2e_latency === 1e39)).toBe(true)

    await migrateThrough(client, 16)
    const expected = before.map((row) => ({
      ...row,
      ...Object.fromEntries(measured.map((name) => [name, measuredValue(row[name], name)])),
    }))
    expect(await stored()).toEqual(expected)
  })

  it('can run again without changing what it rounded', async () => {
    const rounded = await stored()
    await runMigrationAgain(client, 16)
    expect(await stored()).toEqual(rounded)
  })
})
