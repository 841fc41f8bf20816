import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClickHouse, insertNativeBlock } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { conversationStream } from '../../generator/conversation-generator.ts'
import { type TableRows, tableColumns, tableNames } from '../../services/worker/transform/table-rows.ts'
import { insertSettings, tableBlock } from '../../services/worker/write/clickhouse-insert.ts'
import { storedKeys } from '../../services/worker/write/stored-keys.ts'
import { freshTableRows } from '../bench-conversations.ts'
import { baseTableNames, storedTableNames } from '../stored-tables.ts'

// `node bench/experiments/insert-table-cost.ts`: where the engine's insert CPU goes, per table and per variant
// (#12, insertcost). chDB keeps no system.query_log (none is configured), so each table's insert is
// timed by the process CPU around it (every thread; the Native block is encoded before, not
// counted) minus the merge threads' CPU over the same interval, one table at a time on one client;
// the write's newest-delivery lookup (write/stored-keys.ts) is timed the same way. Merges run as
// in the worker (BENCH_STOP_MERGES=1 stops them: parts then pile up and every insert gets dearer).
// Each variant is a database of its own in the same engine (all migrations, then the variant's
// changes) or per-insert settings; the variants take turns write by write (A B C … then reversed),
// so that all see the same machine. BENCH_CONVERSATIONS (500) per write, BENCH_ROUNDS (6) per variant;
// BENCH_VARIANTS picks variants by name (comma-separated; default all).
const conversations = Number(process.env.BENCH_CONVERSATIONS ?? 500)
const rounds = Number(process.env.BENCH_ROUNDS ?? 6)

interface Variant {
  name: string
  /** Statements after the migrations ({db} = the variant's database). */
  schema?: string[]
  settings?: Record<string, string | number>
  token?: boolean
}
const allVariants: Variant[] = [
  { name: 'base' },
  { name: 'optimize_on_insert_0', settings: { optimize_on_insert: 0 } },
  { name: 'no_token', token: false },
  {
    name: 'no_skip_indexes',
    schema: [
      'ALTER TABLE {db}.conversations DROP INDEX session_id_index',
      'ALTER TABLE {db}.conversations DROP INDEX campaign_id_index',
      'ALTER TABLE {db}.conversations DROP INDEX test_run_id_index',
      'ALTER TABLE {db}.conversation_items DROP INDEX session_id_index',
    ],
  },
  { name: 'no_rollup_view', schema: ['DROP VIEW {db}.agent_latency_minute_mv'] },
  {
    name: 'no_dedup_window',
    schema: baseTableNames.map(
      (t) => `ALTER TABLE {db}.${t} MODIFY SETTING non_replicated_deduplication_window = 0`,
    ),
  },
]
// The rollup view of migration 0006 with each *_unflagged state taken from its flagged twin when the
// arrays are equal (no flagged value in that conversation-minute): the same state, computed once.
const view0006 = readFileSync(
  new URL('../../schemas/clickhouse/migrations/0006_latency_rollup_unflagged.sql', import.meta.url),
  'utf8',
)
const viewSql = view0006.slice(
  view0006.indexOf('CREATE MATERIALIZED VIEW'),
  view0006.indexOf(';', view0006.indexOf('CREATE MATERIALIZED VIEW')),
)
const reusedView = viewSql
  .replace(
    /arrayReduce\('quantileTDigestState', (\w+)_unflagged\) AS/g,
    "if($1_unflagged = $1, $1_quantiles, arrayReduce('quantileTDigestState', $1_unflagged)) AS",
  )
  .replaceAll('{database}', '{db}')
allVariants.push(
  { name: 'view_reuses_state', schema: ['DROP VIEW {db}.agent_latency_minute_mv', reusedView] },
  {
    name: 'view_reuses_state_forced',
    schema: ['DROP VIEW {db}.agent_latency_minute_mv', reusedView],
    settings: { short_circuit_function_evaluation: 'force_enable' },
  },
  {
    name: 'ooi0_and_view_reuse',
    schema: ['DROP VIEW {db}.agent_latency_minute_mv', reusedView],
    settings: { optimize_on_insert: 0 },
  },
)
allVariants.push(
  { name: 'old_analyzer', settings: { enable_analyzer: 0 } },
  { name: 'one_thread', settings: { max_threads: 1, max_insert_threads: 1 } },
)
// Insert parts compact (a dozen files instead of two per column stream, ~150 for the items), merged
// parts above BENCH_WIDE_MB (32) wide as before (migration 0008).
const wideBytes = Number(process.env.BENCH_WIDE_MB ?? 32) * 2 ** 20
allVariants.push({
  name: `compact_below_${wideBytes >> 20}mb`,
  schema: storedTableNames.map(
    (t) => `ALTER TABLE {db}.${t} MODIFY SETTING min_bytes_for_wide_part = ${wideBytes}`,
  ),
})
// Attribution only (not a valid rollup): the view without its ten t-digest states.
allVariants.push({
  name: 'view_without_quantiles',
  schema: [
    'DROP VIEW {db}.agent_latency_minute_mv',
    reusedView.replace(/^\s*if\(.*\n|^\s*arrayReduce\(.*\n/gm, '').replace(/,(\s*FROM)/, '$1'),
  ],
})
if (process.env.BENCH_PRINT_VIEW) console.log(reusedView)
const picked = process.env.BENCH_VARIANTS?.split(',')
const variants = allVariants.filter((variant) => !picked || picked.includes(variant.name))

const dataDir = mkdtempSync(join(tmpdir(), 'va-bench-table-cost-'))
const client = createClickHouse({
  CLICKHOUSE_DATA_DIR: dataDir,
  CLICKHOUSE_USER: 'default',
  CLICKHOUSE_PASSWORD: '',
})
const pool = [...conversationStream({ count: conversations, seed: 2024, historyItems: 40 })]
const processCpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}
/** CPU ms of the engine's merge threads (MergeMutate…), from /proc/self/task/<tid>/stat. */
const mergeCpuMs = () => {
  let ticks = 0
  for (const task of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8')
      if (!stat.slice(stat.indexOf('(') + 1).startsWith('MergeMutate')) continue
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {} // a thread that ended meanwhile
  }
  return ticks * 10
}
/** The non-merge CPU ms `run` costs. */
async function measured(run: () => Promise<unknown>): Promise<number> {
  const merge0 = mergeCpuMs()
  const started = processCpuMs()
  await run()
  const spent = processCpuMs() - started
  return spent - (mergeCpuMs() - merge0)
}
const database = (variant: Variant) => `cost_${variant.name}`
for (const variant of variants) {
  const db = database(variant)
  await runMigrations(client, db)
  for (const statement of variant.schema ?? [])
    await client.command({ query: statement.replaceAll('{db}', db) })
  if (process.env.BENCH_STOP_MERGES === '1')
    for (const table of storedTableNames) await client.command({ query: `SYSTEM STOP MERGES ${db}.${table}` })
}

const columnsShown = ['lookup', ...tableNames] as const
type Column = (typeof columnsShown)[number]
const totals = new Map<string, Record<Column, number>>()
let writeIndex = 0
async function write(variant: Variant, rows: TableRows, counted: boolean) {
  const db = database(variant)
  const token = `cost-${writeIndex++}`
  const total =
    totals.get(variant.name) ??
    (Object.fromEntries(columnsShown.map((t) => [t, 0])) as Record<Column, number>)
  if (counted) totals.set(variant.name, total)
  const lookup = await measured(() => storedKeys(client, db, rows))
  if (counted) total.lookup += lookup
  for (const table of tableNames) {
    if ((rows[table] as unknown[]).length === 0) continue
    const block = tableBlock(table, rows)
    const settings: Record<string, string | number> = { ...insertSettings, ...variant.settings }
    if (variant.token !== false) settings.insert_deduplication_token = token
    const spent = await measured(() =>
      insertNativeBlock(client, { table: `${db}.${table}`, columns: tableColumns[table], block, settings }),
    )
    if (counted) total[table] += spent
  }
}
const sample = freshTableRows(pool)
for (const variant of variants) await write(variant, freshTableRows(pool), false)
const load0 = loadavg()[0] ?? 0
for (let round = 0; round < rounds; round++)
  for (const variant of round % 2 === 0 ? variants : [...variants].reverse())
    await write(variant, freshTableRows(pool), true)
const load1 = loadavg()[0] ?? 0

const per = (ms: number) => (ms / rounds / conversations) * 1000
console.log(
  `Engine CPU (merges excluded) per table's insert and per lookup, µs per conversation (${conversations} conversations, ${sample.conversation_items.length} item rows per write; ` +
    `${rounds} writes per variant alternating; merges ${process.env.BENCH_STOP_MERGES === '1' ? 'stopped' : 'running'}; load ${load0.toFixed(2)} → ${load1.toFixed(2)})\n`,
)
console.log(`| variant | ${columnsShown.join(' | ')} | sum |`)
console.log(`|---|${columnsShown.map(() => '---|').join('')}---|`)
for (const variant of variants) {
  const total = totals.get(variant.name)!
  const values = columnsShown.map((t) => per(total[t]))
  console.log(
    `| ${variant.name} | ${values.map((v) => v.toFixed(0)).join(' | ')} | ${values.reduce((a, b) => a + b, 0).toFixed(0)} |`,
  )
}
console.log(
  `\nrows per write: ${tableNames.map((t) => `${t} ${(sample[t] as unknown[]).length}`).join(', ')}`,
)
await client.close()
rmSync(dataDir, { recursive: true, force: true })
