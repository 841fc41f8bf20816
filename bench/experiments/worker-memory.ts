import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from 'chdb'
import {
  createClickHouse,
  embeddedConfigXml,
  embeddedMergeTreeSettings,
} from '../../core/clickhouse/clickhouse.ts'
import { loadMigrations, runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { environmentPairs } from '../../core/runtime/shell-environment.ts'
import { conversationStream } from '../../generator/conversation-generator.ts'
import type { TableRows } from '../../services/worker/transform/table-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { storedKeys } from '../../services/worker/write/stored-keys.ts'
import { freshTableRows } from '../bench-conversations.ts'

// `node bench/experiments/worker-memory.ts`: the worker's memory without Kafka (#12). Opens ClickHouse as the
// worker does (createClickHouse twice on one directory, migrations), writes BENCH_WRITES (40) writes
// of BENCH_CONVERSATIONS (500) generated conversations through the worker's Native route, and prints
// one JSON line: peak RSS (VmHWM), CPU ms per conversation, the load average, and at the RSS peak the
// engine's own view (MemoryTracking, merges in flight and their memory, caches) and the V8 heap.
// PROBE_ARGS starts the engine with those arguments instead of createClickHouse's configuration
// (later connections join the running engine): e.g. "--background_pool_size=2" for the engine's
// defaults, "--config-file=/tmp/x.xml" for other MergeTree settings. Run each variant in a process
// of its own and alternate them (A B B A): one engine per process.
// Knobs for the engine's settings (#12, engine branch), each a space-separated list of name=value:
// PROBE_MERGE_TREE adds to (or overrides) createClickHouse's MergeTree defaults, PROBE_SERVER adds
// server settings (a value may be XML, e.g. profiles=<default><x>0</x></default>); both go into a
// configuration file the engine starts with. PROBE_LOOKUP=1 makes each write's newest-delivery
// lookup first (write/stored-keys.ts), as the worker does. The output adds the engine's merge
// counters (system.events) and the process CPU per thread kind (/proc/self/task/*/stat).
const conversations = Number(process.env.BENCH_CONVERSATIONS ?? 500)
const writes = Number(process.env.BENCH_WRITES ?? 40)
const mergeTree = environmentPairs(process.env.PROBE_MERGE_TREE)
const server = environmentPairs(process.env.PROBE_SERVER)
const lookup = process.env.PROBE_LOOKUP === '1'
const dataDir = mkdtempSync(join(tmpdir(), 'va-memprobe-'))
const args = (process.env.PROBE_ARGS ?? '').split(' ').filter(Boolean)
if (Object.keys(mergeTree).length + Object.keys(server).length > 0) {
  const file = join(dataDir, 'probe-config.xml')
  writeFileSync(file, embeddedConfigXml({ ...embeddedMergeTreeSettings, ...mergeTree }, server))
  args.push(`--config-file=${file}`)
}
const first = args.length > 0 ? new Session(dataDir, { connectionArgs: args }) : undefined
const cfg = { CLICKHOUSE_DATA_DIR: dataDir, CLICKHOUSE_USER: 'default', CLICKHOUSE_PASSWORD: '' }
const client = createClickHouse(cfg)
const items = createClickHouse(cfg)
const db = 'probe'
// PROBE_MIGRATIONS_BELOW=N: only the migrations before version N (the schema before a migration).
const below = Number(process.env.PROBE_MIGRATIONS_BELOW ?? Number.POSITIVE_INFINITY)
await runMigrations(
  client,
  db,
  loadMigrations(db).filter((migration) => migration.version < below),
)
const pool = [...conversationStream({ count: conversations, seed: 2024, historyItems: 40 })]
const freshRows = (): TableRows => freshTableRows(pool)
const status = () => {
  const s = readFileSync('/proc/self/status', 'utf8')
  const kb = (k: string) => Number(s.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1] ?? 0) / 1024
  return { rss: kb('VmRSS'), hwm: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile') }
}
const q = async (sql: string) =>
  (await (await client.query({ query: sql, format: 'JSONEachRow' })).json()) as Record<string, unknown>[]
const engine = async () => {
  const m = await q(
    `SELECT metric, value FROM system.metrics WHERE metric IN ('MemoryTracking','Merge','BackgroundMergesAndMutationsPoolTask','BackgroundMergesAndMutationsPoolSize')`,
  )
  const a = await q(
    `SELECT metric, value FROM system.metrics WHERE metric IN ('MarkCacheBytes','UncompressedCacheBytes','PrimaryIndexCacheBytes','QueryCacheBytes','MemoryTrackingInBackgroundMergesAndMutationsPool','MergesMutationsMemoryTracking')`,
  )
  const g = await q(`SELECT count() n, sum(memory_usage) mem FROM system.merges`)
  const o: Record<string, number> = {}
  for (const r of [...m, ...a])
    o[r.metric as string] = Math.round(
      Number(r.value) / ((r.metric as string).includes('Pool') || r.metric === 'Merge' ? 1 : 2 ** 20),
    )
  o.mergesNow = Number(g[0]?.n)
  o.mergesMemMB = Math.round(Number(g[0]?.mem) / 2 ** 20)
  return o
}
// Process CPU ms per thread kind: thread names without their numbers (MergeMutate, ThreadPool, ...).
const threadCpu = () => {
  const ticks: Record<string, number> = {}
  for (const task of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[\d:/-]+$/, '')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks[name] = (ticks[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10
    } catch {} // a thread that ended meanwhile
  }
  return ticks
}
const events = async () =>
  Object.fromEntries(
    (
      await q(
        `SELECT event, value FROM system.events WHERE event IN ('Merge','MergedRows','MergeTotalMilliseconds','MergedUncompressedBytes','InsertedRows','SelectedRows','SelectQueryTimeMicroseconds','InsertQueryTimeMicroseconds')`,
      )
    ).map((r) => [r.event as string, Number(r.value)]),
  )
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const load0 = loadavg()[0] ?? 0
let peak: Record<string, number> = {}
let peakRss = 0
const timer = setInterval(() => {
  const s = status()
  if (s.rss > peakRss) peakRss = s.rss
}, 50)
const events0 = await events()
const threads0 = threadCpu()
const cpu0 = cpu()
let lookupMs = 0
for (let i = 0; i < writes; i++) {
  const rows = freshRows()
  if (lookup) {
    const started = performance.now()
    await storedKeys(client, db, rows)
    lookupMs += performance.now() - started
  }
  await insertTableRows(client, db, rows, `probe-${i}`, items)
  const e = await engine()
  const s = status()
  if (s.rss >= (peak.rss ?? 0))
    peak = {
      ...e,
      rss: Math.round(s.rss),
      rssAnon: Math.round(s.anon),
      rssFile: Math.round(s.file),
      v8heap: Math.round(process.memoryUsage().heapTotal / 2 ** 20),
      ext: Math.round(process.memoryUsage().external / 2 ** 20),
    }
  if (process.env.PROBE_VERBOSE) console.error(i, Math.round(s.rss), JSON.stringify(e))
}
const cpuWrite = cpu() - cpu0
// let merges settle, keep measuring
const settleEnd = Date.now() + 5000
while (Date.now() < settleEnd) {
  await new Promise((r) => setTimeout(r, 500))
}
const cpuAll = cpu() - cpu0
const threads1 = threadCpu()
const perConversation = (ms: number) => +(ms / writes / conversations).toFixed(3)
const threadMs = Object.fromEntries(
  Object.entries(threads1)
    .map(([name, ms]) => [name, perConversation(ms - (threads0[name] ?? 0))] as const)
    .filter(([, ms]) => ms >= 0.01)
    .sort((a, b) => b[1] - a[1]),
)
const events1 = await events()
const eventDelta = Object.fromEntries(
  Object.entries(events1).map(([name, value]) => [name, value - (events0[name] ?? 0)]),
)
const parts = await q(
  `SELECT count() n, countIf(part_type = 'Wide') wide FROM system.parts WHERE database = '${db}' AND active`,
)
clearInterval(timer)
const st = status()
const settings = await q(
  `SELECT name, value FROM system.server_settings WHERE name IN ('background_pool_size','max_server_memory_usage','mark_cache_size','uncompressed_cache_size','background_merges_mutations_concurrency_ratio')`,
)
console.log(
  JSON.stringify({
    args: args.join(' '),
    mergeTree,
    server,
    lookup,
    migrationsBelow: Number.isFinite(below) ? below : undefined,
    lookupMsPerWrite: lookup ? Math.round(lookupMs / writes) : undefined,
    threadMsPerConv: threadMs,
    events: eventDelta,
    activeParts: parts[0],
    peakRss: Math.round(Math.max(peakRss, st.hwm)),
    hwm: Math.round(st.hwm),
    endRss: Math.round(st.rss),
    cpuMsPerConvWrite: +(cpuWrite / writes / conversations).toFixed(3),
    cpuMsPerConvAll: +(cpuAll / writes / conversations).toFixed(3),
    load: [load0, loadavg()[0] ?? 0].map((x) => x.toFixed(2)).join('→'),
    atPeak: peak,
    settings: Object.fromEntries(settings.map((r) => [r.name, r.value])),
    querySettings: Object.fromEntries(
      (
        await q(
          `SELECT name, value FROM system.settings WHERE name IN ('optimize_on_insert','max_insert_threads','max_threads')`,
        )
      ).map((r) => [r.name, r.value]),
    ),
  }),
)
await items.close()
await client.close()
first?.close()
rmSync(dataDir, { recursive: true, force: true })
process.exit(0)
