import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from 'chdb'
import { createClickHouse } from '../services/core/clickhouse.ts'
import { runMigrations } from '../services/core/clickhouse-migrations.ts'
import { conversationStream } from '../services/synthetic/conversation-generator.ts'
import { insertTableRows } from '../services/worker/clickhouse-insert.ts'
import type { TableRows } from '../services/worker/table-rows.ts'
import { freshTableRows } from './bench-conversations.ts'

// `node bench/worker-memory.ts`: the worker's memory without Kafka (#12). Opens ClickHouse as the
// worker does (createClickHouse twice on one directory, migrations), writes BENCH_WRITES (40) writes
// of BENCH_CONVERSATIONS (500) generated conversations through the worker's Native route, and prints
// one JSON line: peak RSS (VmHWM), CPU ms per conversation, the load average, and at the RSS peak the
// engine's own view (MemoryTracking, merges in flight and their memory, caches) and the V8 heap.
// PROBE_ARGS starts the engine with those arguments instead of createClickHouse's configuration
// (later connections join the running engine): e.g. "--background_pool_size=2" for the engine's
// defaults, "--config-file=/tmp/x.xml" for other MergeTree settings. Run each variant in a process
// of its own and alternate them (A B B A): one engine per process.
const conversations = Number(process.env.BENCH_CONVERSATIONS ?? 500)
const writes = Number(process.env.BENCH_WRITES ?? 40)
const args = (process.env.PROBE_ARGS ?? '').split(' ').filter(Boolean)
const dataDir = mkdtempSync(join(tmpdir(), 'va-memprobe-'))
const first = args.length > 0 ? new Session(dataDir, { connectionArgs: args }) : undefined
const cfg = { CLICKHOUSE_DATA_DIR: dataDir, CLICKHOUSE_USER: 'default', CLICKHOUSE_PASSWORD: '' }
const client = createClickHouse(cfg)
const items = createClickHouse(cfg)
const db = 'probe'
await runMigrations(client, db)
const pool = [...conversationStream({ count: conversations, seed: 2024, historyItems: 40 })]
const freshRows = (): TableRows => freshTableRows(pool)
const status = () => {
  const s = readFileSync('/proc/self/status', 'utf8')
  const kb = (k: string) => Number(s.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1] ?? 0) / 1024
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') }
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
const cpu0 = cpu()
for (let i = 0; i < writes; i++) {
  const rows = freshRows()
  await insertTableRows(client, db, rows, `probe-${i}`, items)
  const e = await engine()
  const s = status()
  if (s.rss >= (peak.rss ?? 0))
    peak = {
      ...e,
      rss: Math.round(s.rss),
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
clearInterval(timer)
const st = status()
const settings = await q(
  `SELECT name, value FROM system.server_settings WHERE name IN ('background_pool_size','max_server_memory_usage','mark_cache_size','uncompressed_cache_size','background_merges_mutations_concurrency_ratio')`,
)
console.log(
  JSON.stringify({
    args: args.join(' '),
    peakRss: Math.round(Math.max(peakRss, st.hwm)),
    hwm: Math.round(st.hwm),
    endRss: Math.round(st.rss),
    cpuMsPerConvWrite: +(cpuWrite / writes / conversations).toFixed(3),
    cpuMsPerConvAll: +(cpuAll / writes / conversations).toFixed(3),
    load: [load0, loadavg()[0] ?? 0].map((x) => x.toFixed(2)).join('→'),
    atPeak: peak,
    settings: Object.fromEntries(settings.map((r) => [r.name, r.value])),
  }),
)
await items.close()
await client.close()
first?.close()
rmSync(dataDir, { recursive: true, force: true })
process.exit(0)
