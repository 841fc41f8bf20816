import { randomUUID } from 'node:crypto'
import { rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { createClickHouse } from '../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../core/clickhouse/clickhouse-migrations.ts'
import type { ConversationCompleteEvent } from '../core/event/conversation-complete.types.ts'
import { createEventCodec, createSchemaRegistry } from '../core/event/event-codec.ts'
import type { AvroRecord } from '../core/event/event-record.ts'
import type { ConsumedMessage } from '../core/kafka/partition-batches.ts'
import { conversationRows, type Delivery } from '../services/worker/transform/conversation-rows.ts'
import {
  agentConfigColumns,
  agentConfigTables,
  turnTakingColumns,
} from '../services/worker/transform/table-rows.ts'
import { type MessageRows, mergeRows } from '../services/worker/write/batch-rows.ts'
import { insertTableRows } from '../services/worker/write/clickhouse-insert.ts'
import { insertToken } from '../services/worker/write/insert-token.ts'
import { offsetRanges } from '../services/worker/write/write-split.ts'
import { withImpossibleMetrics } from '../test/fixtures/impossible-metrics.ts'
import { fixtureNames, loadFixture } from '../test/fixtures/index.ts'
import { schemaRegistryUrl } from '../test/stack/servers.ts'
import { conversationPool, messageBytes } from './bench-conversations.ts'
import { machineLine } from './bench-process.ts'
import { clickhouseSideStatements, landingInsert } from './clickhouse-side/clickhouse-side-sql.ts'
import { storedTableNames } from './stored-tables.ts'

// The ClickHouse-side route against the worker's current JS route, in one process and one run
// (#12), on the same conversations as Kafka message bytes, batch by batch, alternating
// (JS, SQL, SQL, JS, ...), each into a fresh database of its own on one embedded chDB:
//  - JS: the worker's own public functions — registry decode, conversationRows (the transform),
//    mergeRows, the insert token, insertTableRows with a second session for the items, as the
//    worker writes; whatever insert format clickhouse-insert.ts uses, this measures it. Not
//    included: the worker's read of stored conversations for re-delivery tombstones (one query
//    per write) and Kafka itself.
//  - SQL: the batch's message bytes, concatenated, written to /dev/shm and
//    `INSERT INTO conversation_landing FROM INFILE … FORMAT AvroConfluent`, flattened by the views
//    of views.sql (no decode in JS at all).
// Prints process CPU ms per conversation for each (process.cpuUsage: the engine's threads, its
// background merges included, count for whichever route runs), wall time, the rows each route
// stored per table, and how many rows differ in any column (where views.sql says the SQL is exact,
// none should).
// BENCH_CONVERSATIONS (default 4000), BENCH_BATCH (default 500, about the worker's write size).
// BENCH_INPUT=fixtures: instead of generated conversations, the hand-made fixtures and the edge
// cases views.sql says the SQL does not express exactly, with the differing rows shown.
const input = process.env.BENCH_INPUT ?? 'generated'
const totalGenerated = Number(process.env.BENCH_CONVERSATIONS ?? 4000)
const batchSize = Number(process.env.BENCH_BATCH ?? 500)
const generated = conversationPool()

/** The hand-made fixtures and the cases views.sql lists as inexact, each a new conversation. */
function edgeCases(): ConversationCompleteEvent[] {
  const fresh = (event: ConversationCompleteEvent, name: string) => {
    const copy = structuredClone(event)
    copy.data.session_id = `${copy.data.session_id}-${name}-${randomUUID()}`
    return copy
  }
  const cases = fixtureNames.map((name) => fresh(loadFixture(name), name))
  cases.push(withImpossibleMetrics(loadFixture('full'), randomUUID()).event)
  // Tool-call pairing: an output before its call (the two stay apart), then the output once more
  // after the call (it answers it), and an output repeated (the second stands alone).
  const reordered = fresh(loadFixture('tool-calls'), 'output-first')
  const history = reordered.data.history!
  const call = history.findIndex((item) => item.kind === 'FunctionCall')
  ;[history[call], history[call + 1]] = [history[call + 1]!, history[call]!]
  history.splice(call + 2, 0, structuredClone(history[call]!))
  const output = history.findIndex((item, index) => index > call + 2 && item.kind === 'FunctionCallOutput')
  history.splice(output + 1, 0, structuredClone(history[output]!))
  cases.push(reordered)
  // A test_eval_result with nothing in it: a test_results row in JS, none in SQL (views.sql).
  const emptyEval = fresh(loadFixture('web-call'), 'empty-eval')
  emptyEval.data.test_eval_result = { success: null, reasons: [], completion_reason: null }
  cases.push(emptyEval)
  // The key time's fallbacks: no start_time nor created_at (the earliest timestamp), no time at all.
  const earliest = fresh(loadFixture('handoff'), 'earliest-time')
  earliest.data.start_time = null
  earliest.data.created_at = null
  cases.push(earliest)
  const timeless = fresh(loadFixture('failed-room'), 'no-time')
  for (const key of ['start_time', 'created_at', 'agent_joined_at', 'audio_url_expires_at'] as const)
    timeless.data[key] = null
  for (const item of timeless.data.history ?? []) {
    item.created_at = null
    if (item.metrics) item.metrics = { ...item.metrics, started_speaking_at: null, stopped_speaking_at: null }
  }
  cases.push(timeless)
  // Unicode everywhere text goes, and an agent_id the platform did not send.
  const unicode = fresh(loadFixture('interruptions'), 'unicode')
  unicode.data.agent_id = null
  unicode.data.agent_name = 'Ça va — 受付 🤖'
  for (const item of unicode.data.history ?? [])
    if (item.content) item.content = `${item.content} — ñ, 中文, 👋🏽`
  cases.push(unicode)
  return cases
}

const registryUrl = schemaRegistryUrl()
const dataDir = `/dev/shm/va-route-ab-${process.pid}`
const infile = `/dev/shm/va-route-ab-${process.pid}.avro`
const topic = 'route-ab'
// The data directory and the insert file go however the run ends (a failed statement included).
process.once('exit', () => {
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(infile, { force: true })
})

const codec = await createEventCodec(createSchemaRegistry(registryUrl))
const registry = createSchemaRegistry(registryUrl)
const events =
  input === 'fixtures'
    ? edgeCases()
    : Array.from({ length: totalGenerated }, (_, index) => generated.event(index))
const total = events.length
const batches: Buffer[][] = []
for (let start = 0; start < total; start += batchSize) {
  const size = Math.min(batchSize, total - start)
  batches.push(
    await Promise.all(events.slice(start, start + size).map((event) => messageBytes(codec, event))),
  )
}

const client = createClickHouse({
  CLICKHOUSE_DATA_DIR: dataDir,
  CLICKHOUSE_USER: 'default',
  CLICKHOUSE_PASSWORD: '',
})
const itemsClient = createClickHouse({
  CLICKHOUSE_DATA_DIR: dataDir,
  CLICKHOUSE_USER: 'default',
  CLICKHOUSE_PASSWORD: '',
})
const databases = { js: 'route_js', sql: 'route_sql' } as const
await runMigrations(client, databases.js)
await runMigrations(client, databases.sql)
for (const statement of clickhouseSideStatements(databases.sql, { kind: 'insert' }))
  await client.command({ query: statement })

let offset = 0
async function jsRoute(values: Buffer[]): Promise<void> {
  const now = Date.now()
  const entries: MessageRows[] = []
  for (const value of values) {
    const message = { key: null, value, timestamp: String(now), offset: String(offset), attributes: 0 }
    const delivery: Delivery = { topic, partition: 0, offset: offset++, timestampMs: now }
    const record = (await registry.decode(value)) as AvroRecord
    entries.push({
      delivery,
      message: message as unknown as ConsumedMessage,
      rows: conversationRows(record, delivery),
    })
  }
  await insertTableRows(
    client,
    databases.js,
    mergeRows(entries),
    insertToken(offsetRanges(entries)),
    itemsClient,
  )
}

let sqlBatch = 0
async function sqlRoute(values: Buffer[]): Promise<void> {
  writeFileSync(infile, Buffer.concat(values))
  await client.command({ query: landingInsert(databases.sql, infile, registryUrl, `route-ab-${sqlBatch++}`) })
}

const routes = { js: jsRoute, sql: sqlRoute }
const spent = {
  js: { cpuMs: 0, wallMs: 0, conversations: 0 },
  sql: { cpuMs: 0, wallMs: 0, conversations: 0 },
}
const loadBefore = loadavg()[0]!
// Warm-up (registry schema cache, first parts), not counted: one small batch each.
await jsRoute(batches[0]!.slice(0, 10))
await sqlRoute(batches[0]!.slice(0, 10))
for (const [index, values] of batches.entries()) {
  // A B B A: neither route always runs first in a pair (merges of the other's parts, caches).
  const order: Array<keyof typeof routes> = index % 2 === 0 ? ['js', 'sql'] : ['sql', 'js']
  for (const name of order) {
    const cpu = process.cpuUsage()
    const started = performance.now()
    await routes[name](values)
    spent[name].wallMs += performance.now() - started
    const used = process.cpuUsage(cpu)
    spent[name].cpuMs += (used.user + used.system) / 1000
    spent[name].conversations += values.length
  }
}

/** The agent versions are the worker's alone (its transform computes the fingerprints), as the turn-taking columns. */
const comparedTables = storedTableNames.filter((table) => !agentConfigTables.includes(table))
const workerOnlyColumns = [...turnTakingColumns, ...agentConfigColumns]

async function counts(database: string): Promise<Record<string, number>> {
  const result: Record<string, number> = {}
  for (const table of comparedTables) {
    const answer = await client.query({
      query: `SELECT count() AS n FROM ${database}.${table} FINAL`,
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    })
    result[table] = (await answer.json<{ n: number }>())[0]!.n
  }
  return result
}
/**
 * Rows of `table` one route stored and the other did not, every column compared except the Kafka
 * coordinates (not in the bytes), inserted_at, the rollup's t-digest states (compared through
 * their counts, sums and maxima) and the turn-taking and agent configuration columns, which the SQL
 * route does not compute (views.sql; NULL there).
 */
async function differingRows(table: string): Promise<{ onlyJs: number; onlySql: number }> {
  const columns = await client.query({
    query: `SELECT name FROM system.columns WHERE database = '${databases.js}' AND table = '${table}'
      AND name NOT IN ('kafka_topic', 'kafka_partition', 'kafka_offset', 'inserted_at', ${workerOnlyColumns.map((name) => `'${name}'`).join(', ')})
      AND type NOT LIKE 'AggregateFunction%' ORDER BY position`,
    format: 'JSONEachRow',
  })
  const names = (await columns.json<{ name: string }>()).map((row) => row.name).join(', ')
  const only = async (from: string, other: string) => {
    const rows = `SELECT ${names} FROM ${from}.${table} FINAL EXCEPT SELECT ${names} FROM ${other}.${table} FINAL`
    const answer = await client.query({
      query: `SELECT count() AS n FROM (${rows})`,
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    })
    const n = (await answer.json<{ n: number }>())[0]!.n
    if (n > 0 && input === 'fixtures') {
      // Which rows: shown on stderr for the fixtures, where each difference is a case to explain.
      const examples = await client.query({ query: `SELECT * FROM (${rows}) LIMIT 3`, format: 'JSONEachRow' })
      console.error(`${table}, only in ${from}:`, JSON.stringify(await examples.json()))
    }
    return n
  }
  return { onlyJs: await only(databases.js, databases.sql), onlySql: await only(databases.sql, databases.js) }
}
const stored = { js: await counts(databases.js), sql: await counts(databases.sql) }
const differing: Record<string, { onlyJs: number; onlySql: number }> = {}
for (const table of Object.keys(stored.js)) differing[table] = await differingRows(table)
await itemsClient.close()
await client.close()
rmSync(dataDir, { recursive: true, force: true })
rmSync(infile, { force: true })

const perConversation = (name: keyof typeof spent) => spent[name].cpuMs / spent[name].conversations
const lines = [
  `### Route A/B ${new Date().toISOString()} — ${machineLine()}`,
  `bench/route-ab.ts: ${total} conversations in batches of ${batchSize}, alternating; load average (1 min) at start / end: ${loadBefore.toFixed(2)} / ${loadavg()[0]!.toFixed(2)}`,
  '',
  '| route | CPU ms per conversation | wall ms per conversation | conversations/s (one process, wall) |',
  '|---|---|---|---|',
  ...(['js', 'sql'] as const).map(
    (name) =>
      `| ${name === 'js' ? 'JS: decode + transform + insertTableRows (the worker’s functions)' : 'SQL: message bytes → FROM INFILE FORMAT AvroConfluent → views'} | ${perConversation(name).toFixed(3)} | ${(spent[name].wallMs / spent[name].conversations).toFixed(3)} | ${((1000 * spent[name].conversations) / spent[name].wallMs).toFixed(0)} |`,
  ),
  `| JS / SQL CPU | ${(perConversation('js') / perConversation('sql')).toFixed(2)} | | |`,
  '',
  '| table (rows, FINAL) | JS route | SQL route | rows only the JS route stored / only the SQL route stored |',
  '|---|---|---|---|',
  ...Object.keys(stored.js).map(
    (table) =>
      `| ${table} | ${stored.js[table]} | ${stored.sql[table]} | ${differing[table]!.onlyJs} / ${differing[table]!.onlySql} |`,
  ),
  '',
]
console.log(lines.join('\n'))
