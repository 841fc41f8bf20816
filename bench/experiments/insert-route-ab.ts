import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createChdbConnection } from 'chdb/connection'
import { createClickHouse } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { conversationStream } from '../../generator/conversation-generator.ts'
import { type TableRows, tableNames } from '../../services/worker/transform/table-rows.ts'
import { insertTableRows, tableBlock } from '../../services/worker/write/clickhouse-insert.ts'
import {
  insertTableRowsAsJsonCompact,
  jsonCompactBody,
} from '../../test/worker/json-compact-reference-insert.ts'
import { freshTableRows } from '../bench-conversations.ts'
import { storedTableNames } from '../stored-tables.ts'

// `node bench/experiments/insert-route-ab.ts`: the worker's write of N conversations (~40 items each) into
// embedded chDB by the two routes, alternating A B B A in one process so that both see the same
// machine: JSONCompactEachRow through chDB's raw insert (the route before #12) and Native blocks
// through INSERT ... FROM INFILE (the worker's route). Per route: process CPU (every thread: JS and
// the engine) per conversation and per item row, the JS encoding alone, and wall time per write.
// Merges are stopped so that one route's background merges are not billed to the other's write.
// BENCH_CONVERSATIONS (500), BENCH_ROUNDS (4 per route).
const conversations = Number(process.env.BENCH_CONVERSATIONS ?? 500)
const rounds = Number(process.env.BENCH_ROUNDS ?? 4)

const dataDir = mkdtempSync(join(tmpdir(), 'va-bench-route-'))
const client = createClickHouse({
  CLICKHOUSE_DATA_DIR: dataDir,
  CLICKHOUSE_USER: 'default',
  CLICKHOUSE_PASSWORD: '',
})
const jsonConnection = createChdbConnection({ path: dataDir })
const databases = { json: 'bench_json_route', native: 'bench_native_route' } as const
type Route = keyof typeof databases

const pool = [...conversationStream({ count: conversations, seed: 2024, historyItems: 40 })]
/** The pool's rows under fresh session ids: each write stores new conversations. */
const freshRows = (): TableRows => freshTableRows(pool)

const cpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

const write: Record<Route, (rows: TableRows, token: string) => Promise<unknown>> = {
  json: (rows, token) => insertTableRowsAsJsonCompact(jsonConnection.chdb, databases.json, rows, token),
  native: (rows, token) => insertTableRows(client, databases.native, rows, token),
}
const encode: Record<Route, (rows: TableRows) => unknown> = {
  json: (rows) => tableNames.map((table) => jsonCompactBody(table, rows)),
  native: (rows) => tableNames.map((table) => tableBlock(table, rows)),
}

const totals = Object.fromEntries(
  (Object.keys(databases) as Route[]).map((route) => [
    route,
    { cpuMs: 0, encodeCpuMs: 0, wallMs: 0, writes: 0 },
  ]),
) as Record<Route, { cpuMs: number; encodeCpuMs: number; wallMs: number; writes: number }>

for (const database of Object.values(databases)) {
  await runMigrations(client, database)
  for (const table of storedTableNames)
    await client.command({ query: `SYSTEM STOP MERGES ${database}.${table}` })
}
const loadBefore = loadavg()
const sample = freshRows()
const itemRows = sample.conversation_items.length
// Warm-up (JIT, first parts) for both, not counted.
for (const route of Object.keys(databases) as Route[]) await write[route](freshRows(), `warm-${route}`)

const order: Route[] = []
for (let round = 0; round < rounds; round++)
  order.push(...(round % 2 === 0 ? (['json', 'native'] as const) : (['native', 'json'] as const)))
for (const [index, route] of order.entries()) {
  const rows = freshRows()
  const encodeStart = cpuMs()
  encode[route](rows)
  const encodeCpu = cpuMs() - encodeStart
  const started = performance.now()
  const cpuStart = cpuMs()
  await write[route](rows, `bench-${index}`)
  totals[route].cpuMs += cpuMs() - cpuStart
  totals[route].wallMs += performance.now() - started
  totals[route].encodeCpuMs += encodeCpu
  totals[route].writes++
}
const loadAfter = loadavg()

const perWrite = (route: Route) => {
  const total = totals[route]
  return {
    cpuMsPerConversation: total.cpuMs / total.writes / conversations,
    cpuUsPerItemRow: (total.cpuMs * 1000) / total.writes / itemRows,
    encodeUsPerItemRow: (total.encodeCpuMs * 1000) / total.writes / itemRows,
    wallMsPerWrite: total.wallMs / total.writes,
  }
}
const json = perWrite('json')
const native = perWrite('native')
const fixed = (value: number, digits = 2) => value.toFixed(digits)
console.log(
  [
    `Insert route A/B: ${conversations} conversations (${itemRows} item rows, all tables) per write, ` +
      `${rounds} writes per route alternating, merges stopped; load average ` +
      `${loadBefore.map((value) => fixed(value)).join(' ')} before, ${loadAfter.map((value) => fixed(value)).join(' ')} after`,
    '',
    '| route | CPU ms / conversation | CPU µs / item row | of which JS encoding µs / item row | wall ms / write |',
    '|---|---|---|---|---|',
    `| JSONCompactEachRow, raw insert (before) | ${fixed(json.cpuMsPerConversation, 3)} | ${fixed(json.cpuUsPerItemRow, 1)} | ${fixed(json.encodeUsPerItemRow, 1)} | ${fixed(json.wallMsPerWrite, 0)} |`,
    `| Native, FROM INFILE (worker) | ${fixed(native.cpuMsPerConversation, 3)} | ${fixed(native.cpuUsPerItemRow, 1)} | ${fixed(native.encodeUsPerItemRow, 1)} | ${fixed(native.wallMsPerWrite, 0)} |`,
    `| Native / JSON CPU | ${fixed(native.cpuMsPerConversation / json.cpuMsPerConversation)} | | | ${fixed(native.wallMsPerWrite / json.wallMsPerWrite)} |`,
  ].join('\n'),
)

await jsonConnection.close()
await client.close()
rmSync(dataDir, { recursive: true, force: true })
