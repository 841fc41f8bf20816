import { randomUUID } from 'node:crypto'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clickhouseSideStatements, landingInsert } from '../../bench/clickhouse-side/clickhouse-side-sql.ts'
import type { ClickHouseClient } from '../../services/core/clickhouse.ts'
import { runMigrations } from '../../services/core/clickhouse-migrations.ts'
import type { ConversationCompleteEvent } from '../../services/core/event/conversation-complete.types.ts'
import type { AvroRecord } from '../../services/core/event/event-record.ts'
import { toAvroRecord } from '../../services/core/event/event-record.ts'
import { createEventCodec, createSchemaRegistry } from '../../services/core/event-codec.ts'
import { generateConversations } from '../../services/synthetic/conversation-generator.ts'
import { conversationRows } from '../../services/worker/conversation-rows.ts'
import { emptyTableRows, tableNames } from '../../services/worker/table-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { withImpossibleMetrics } from '../fixtures/impossible-metrics.ts'
import { loadAllFixtures, loadFixture } from '../fixtures/index.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { embeddedClickHouse, queryRows, tempDataDir } from './worker-test-support.ts'

// The ClickHouse-side peer of the worker benchmark (bench/clickhouse-side/views.sql) must write the
// rollups of migration 0008 as the worker does: the same Avro message bytes go through the worker's
// transform and insert into one database and through the peer's INSERT route (FORMAT AvroConfluent
// into the landing table, flattened by the views) into another, and conversation_latency and
// agent_latency_minute are compared row by row under FINAL (keys, counts, sums, maxima, histograms).
// The conversations: every fixture (failed rooms, tests, campaigns), one with impossible metrics
// (flagged values), generated ones.
const databases = { worker: 'rollups_worker', peer: 'rollups_peer' } as const
const topic = 'voice.conversation-complete.v1'
const data = tempDataDir('clickhouse-side-rollups')
const infile = join(data.dir, 'landing.avro')
let client: ClickHouseClient

function conversations(): ConversationCompleteEvent[] {
  const fresh = (event: ConversationCompleteEvent) => ({
    ...event,
    data: { ...event.data, session_id: `${event.data.session_id}-${randomUUID()}` },
  })
  return [
    ...Object.values(loadAllFixtures()).map(fresh),
    withImpossibleMetrics(loadFixture('full'), randomUUID()).event,
    ...generateConversations({ count: 12, seed: 8, historyItems: 24 }).map(fresh),
  ]
}

const ordered = (database: string, table: string, time: string) =>
  queryRows(client, `SELECT * FROM ${database}.${table} FINAL ORDER BY agent_id, ${time}, session_id`)

beforeAll(async () => {
  client = embeddedClickHouse(data.dir)
  for (const database of Object.values(databases)) await runMigrations(client, database)
  for (const statement of clickhouseSideStatements(databases.peer, { kind: 'insert' }))
    await client.command({ query: statement })

  const registryUrl = schemaRegistryUrl()
  const codec = await createEventCodec(createSchemaRegistry(registryUrl))
  const registry = createSchemaRegistry(registryUrl)
  const receivedAt = Date.parse('2026-11-25T12:00:00Z')
  const bytes = await Promise.all(
    conversations().map((event) => codec.encode(toAvroRecord(event, { source: 'test', receivedAt }))),
  )

  // The worker: decode, transform, one write of every table (its Null feeds included).
  const rows = emptyTableRows()
  for (const [offset, value] of bytes.entries()) {
    const record = (await registry.decode(value)) as AvroRecord
    const one = conversationRows(record, { topic, partition: 0, offset, timestampMs: receivedAt })
    for (const table of tableNames) (rows[table] as unknown[]).push(...(one[table] as unknown[]))
  }
  await insertTableRows(client, databases.worker, rows, 'rollups-worker')

  // The peer: the message bytes as they are, one INSERT into the landing table.
  writeFileSync(infile, Buffer.concat(bytes))
  await client.command({ query: landingInsert(databases.peer, infile, registryUrl, 'rollups-peer') })
})

afterAll(async () => {
  await client?.close()
  rmSync(infile, { force: true })
  data.remove()
})

describe('the ClickHouse-side peer (views.sql) and the worker', () => {
  it('store the same conversation_latency rows, flagged turns and failures included', async () => {
    const worker = await ordered(databases.worker, 'conversation_latency', 'event_time')
    const peer = await ordered(databases.peer, 'conversation_latency', 'event_time')
    expect(worker.length).toBe(conversations().length)
    // What the comparison must cover to mean something: flagged turns, failures, tests.
    expect(worker.some((row) => Number(row.e2e_latency_flagged_count) > 0)).toBe(true)
    expect(worker.some((row) => row.failed === true)).toBe(true)
    expect(worker.some((row) => row.is_test === true)).toBe(true)
    expect(peer).toEqual(worker)
  })

  it('store the same agent_latency_minute rows, unflagged and flagged histograms apart', async () => {
    const worker = await ordered(databases.worker, 'agent_latency_minute', 'minute')
    const peer = await ordered(databases.peer, 'agent_latency_minute', 'minute')
    expect(worker.length).toBeGreaterThan(conversations().length)
    expect(worker.some((row) => Number(row.llm_node_ttft_flagged_count) > 0)).toBe(true)
    expect(worker.some((row) => (row.e2e_latency_unflagged_buckets as number[]).length > 1)).toBe(true)
    expect(peer).toEqual(worker)
  })
})
