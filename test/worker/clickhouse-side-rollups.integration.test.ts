import { randomUUID } from 'node:crypto'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clickhouseSideStatements, landingInsert } from '../../bench/clickhouse-side/clickhouse-side-sql.ts'
import { awaitHourRollup } from '../../bench/clickhouse-side/hour-rollup-caught-up.ts'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { createEventCodec, createSchemaRegistry } from '../../core/event/event-codec.ts'
import type { AvroRecord } from '../../core/event/event-record.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { emptyTableRows, tableNames } from '../../services/worker/transform/table-rows.ts'
import { insertRowsAndHourRollup } from '../../services/worker/write/clickhouse-insert.ts'
import { withImpossibleMetrics } from '../fixtures/impossible-metrics.ts'
import { loadAllFixtures, loadFixture } from '../fixtures/index.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { embeddedClickHouse, queryRows, tempDataDir } from '../support/embedded-clickhouse.ts'

// The ClickHouse-side peer of the worker benchmark (bench/clickhouse-side/views.sql) must write the
// rollups as the worker does: the same Avro message bytes go through the worker's transform, insert
// and hour recompute into one database and through the peer's INSERT route (FORMAT AvroConfluent
// into the landing table, flattened by the views; the hour rollup by its refreshable view) into
// another, and conversation_latency (0008, with 0014's bands), agent_latency_minute (0008) and
// agent_latency_hour (0013) are compared row by row under FINAL (keys, counts, sums, maxima,
// histograms, bands; the hour rollup's version and the minute rollup's insert time, clocks, aside). The conversations, in two writes:
// every fixture (failed rooms, tests, campaigns), one with impossible metrics (flagged values),
// generated ones; then more generated ones and copies of the first write's, so that the second
// write changes agent-hours the hour rollup already holds.
const databases = { worker: 'rollups_worker', peer: 'rollups_peer' } as const
const topic = 'voice.conversation-complete.v1'
const data = tempDataDir('clickhouse-side-rollups')
const infile = join(data.dir, 'landing.avro')
let client: ClickHouseClient

const fresh = (event: ConversationCompleteEvent) => ({
  ...event,
  data: { ...event.data, session_id: `${event.data.session_id}-${randomUUID()}` },
})
const generated = generateConversations({ count: 12, seed: 8, historyItems: 24 })
const writes = [
  [
    ...Object.values(loadAllFixtures()).map(fresh),
    withImpossibleMetrics(loadFixture('full'), randomUUID()).event,
    ...generated.slice(0, 8).map(fresh),
  ],
  [...generated.slice(8).map(fresh), ...generated.slice(0, 3).map(fresh)],
]
const conversationCount = writes[0]!.length + writes[1]!.length

/** A table's rows under FINAL; the minute rollup's insert time (0017), a clock, aside. */
const ordered = (database: string, table: string, time: string) =>
  queryRows(
    client,
    `SELECT * ${table === 'agent_latency_minute' ? 'EXCEPT inserted_at' : ''}
      FROM ${database}.${table} FINAL ORDER BY agent_id, ${time}, session_id`,
  )
const hourRows = (database: string) =>
  queryRows(
    client,
    `SELECT * EXCEPT version FROM ${database}.agent_latency_hour FINAL ORDER BY agent_id, hour, source, agent_name`,
  )
/** The hour rollup of each database after each write. */
const hoursAfter: { worker: Record<string, unknown>[]; peer: Record<string, unknown>[] }[] = []

beforeAll(async () => {
  client = embeddedClickHouse(data.dir)
  for (const database of Object.values(databases)) await runMigrations(client, database)
  for (const statement of clickhouseSideStatements(databases.peer, { kind: 'insert' }))
    await client.command({ query: statement })

  const registryUrl = schemaRegistryUrl()
  const codec = await createEventCodec(createSchemaRegistry(registryUrl))
  const registry = createSchemaRegistry(registryUrl)
  const receivedAt = Date.parse('2026-11-25T12:00:00Z')
  let offset = 0
  for (const [index, write] of writes.entries()) {
    const bytes = await Promise.all(
      write.map((event) => codec.encode(toAvroRecord(event, { source: 'test', receivedAt }))),
    )
    // The worker: decode, transform, one write of every table (its Null feeds included), then the
    // recompute of the agent-hours it touched, as the worker does after each write.
    const rows = emptyTableRows()
    for (const value of bytes) {
      const record = (await registry.decode(value)) as AvroRecord
      const one = conversationRows(record, { topic, partition: 0, offset: offset++, timestampMs: receivedAt })
      for (const table of tableNames) (rows[table] as unknown[]).push(...(one[table] as unknown[]))
    }
    await insertRowsAndHourRollup(client, databases.worker, rows, `rollups-worker-${index}`)

    // The peer: the message bytes as they are, one INSERT into the landing table; its hour rollup
    // once the refreshable view has caught up.
    writeFileSync(infile, Buffer.concat(bytes))
    await client.command({
      query: landingInsert(databases.peer, infile, registryUrl, `rollups-peer-${index}`),
    })
    await awaitHourRollup(client, databases.peer)
    hoursAfter.push({ worker: await hourRows(databases.worker), peer: await hourRows(databases.peer) })
  }
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
    expect(worker.length).toBe(conversationCount)
    // What the comparison must cover to mean something: flagged turns, failures, tests.
    expect(worker.some((row) => Number(row.e2e_latency_flagged_count) > 0)).toBe(true)
    expect(worker.some((row) => row.failed === true)).toBe(true)
    expect(worker.some((row) => row.is_test === true)).toBe(true)
    expect(peer).toEqual(worker)
  })

  it('store the same agent_latency_minute rows, unflagged and flagged histograms apart', async () => {
    const worker = await ordered(databases.worker, 'agent_latency_minute', 'minute')
    const peer = await ordered(databases.peer, 'agent_latency_minute', 'minute')
    expect(worker.length).toBeGreaterThan(conversationCount)
    expect(worker.some((row) => Number(row.llm_node_ttft_flagged_count) > 0)).toBe(true)
    expect(worker.some((row) => (row.e2e_latency_unflagged_buckets as number[]).length > 1)).toBe(true)
    expect(peer).toEqual(worker)
  })

  it('store the same agent_latency_hour rows after each write, the hours a second write changed included', async () => {
    const [first, second] = hoursAfter
    // What the comparison must cover: hours with flagged values, and hours the second write changed.
    expect(first!.worker.length).toBeGreaterThan(0)
    expect(first!.worker.some((row) => Number(row.llm_node_ttft_flagged_count) > 0)).toBe(true)
    const key = (row: Record<string, unknown>) =>
      JSON.stringify([row.agent_id, row.hour, row.source, row.agent_name])
    const before = new Map(first!.worker.map((row) => [key(row), JSON.stringify(row)]))
    const changed = second!.worker.filter(
      (row) => before.has(key(row)) && before.get(key(row)) !== JSON.stringify(row),
    )
    expect(changed.length).toBeGreaterThan(0)
    expect(first!.peer).toEqual(first!.worker)
    expect(second!.peer).toEqual(second!.worker)
  })
})
