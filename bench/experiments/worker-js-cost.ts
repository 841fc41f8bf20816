import { existsSync } from 'node:fs'
import { loadavg } from 'node:os'
import { createEventCodec, createSchemaRegistry } from '../../core/event/event-codec.ts'
import { schemaRegistryUrl } from '../../test/stack/servers.ts'
import { conversationPool, messageBytes } from '../bench-conversations.ts'
import { abCheckouts } from '../bench-process.ts'

// `node bench/experiments/worker-js-cost.ts`: the worker's main-thread JS per conversation, stage by stage, in
// one process, for two checkouts of the code (A: BENCH_A_DIR, required; B: BENCH_B_DIR, default this one),
// alternating A B B A so both see the same machine: Avro decode of the message bytes (the worker's
// decoder: the registry's decode, or decode-message.ts's cached decoder where B has it), the
// transform (conversationRows), merging a write's rows and encoding them as Native blocks
// (clickhouse-insert.ts's tableBlock), and the domain metrics at commit (newConversations and
// recordConversations). No Kafka consumer, no engine: process CPU (process.cpuUsage: the JS thread
// and V8's GC helpers) per conversation; a write is encoded after BENCH_PENDING later writes were
// transformed, as the worker's pending batches wait; with --expose-gc, the heap the rows of one write
// hold after a GC (measured apart, before the runs). Needs the registry of the local stack.
// BENCH_CONVERSATIONS (2,000), BENCH_WRITE (175 conversations per write), BENCH_ROUNDS (2 per code),
// BENCH_PENDING (4).
const total = Number(process.env.BENCH_CONVERSATIONS ?? 2000)
const perWrite = Number(process.env.BENCH_WRITE ?? 175)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const pending = Number(process.env.BENCH_PENDING ?? 4)
const dirs = abCheckouts()
type Code = keyof typeof dirs

const schemaRegistry = createSchemaRegistry(schemaRegistryUrl())
const codec = await createEventCodec(schemaRegistry)
const pool = conversationPool(400)
const messages = await Promise.all(
  Array.from({ length: total }, (_, index) => messageBytes(codec, pool.event(index))),
)

type Rows = Record<string, unknown[]>
interface Stages {
  decode(value: Buffer): Promise<unknown>
  rows(record: unknown, offset: number): Rows
  encode(rows: Rows[]): number
  metrics(rows: Rows): void
}

async function stagesOf(dir: string): Promise<Stages> {
  const load = (path: string) => import(`${dir}/${path}`)
  // A file of this name in write/ where the checkout has it (#30), else beside the worker.
  const loadWrite = (name: string) =>
    load(
      existsSync(`${dir}/services/worker/write/${name}`)
        ? `services/worker/write/${name}`
        : `services/worker/${name}`,
    )
  const { conversationRows } = await load('services/worker/transform/conversation-rows.ts')
  const { mergeRows } = await load('services/worker/write/batch-rows.ts')
  const { tableBlock } = await loadWrite('clickhouse-insert.ts')
  const { tableNames } = await load('services/worker/transform/table-rows.ts')
  const domain = await load('services/worker/observe/domain-metrics.ts')
  const { createMetricsRegistry } = await load('core/runtime/metrics.ts')
  const decodeModule = await load('services/worker/consume/decode-message.ts')
  const metrics = domain.createDomainMetrics(createMetricsRegistry('bench'), {
    agentAllowlist: [],
    agentLimit: 50,
    valueLimit: 50,
    liveWindowMs: 86_400_000,
  })
  // The write's plan where the checkout has it (#30): which conversations it knows (a hash each).
  const firstDeliveries = existsSync(`${dir}/services/worker/write/first-deliveries.ts`)
    ? {
        ...(await loadWrite('first-deliveries.ts')),
        known: new (await loadWrite('known-sessions.ts')).KnownSessions(),
      }
    : undefined
  // B's decoder with the schema cached per id, where the checkout has one; else the registry's.
  const decode: (value: Buffer) => Promise<unknown> =
    typeof decodeModule.cachedSchemaDecoder === 'function'
      ? decodeModule.cachedSchemaDecoder(schemaRegistry)
      : (value) => schemaRegistry.decode(value)
  return {
    decode,
    rows: (record, offset) =>
      conversationRows(record, { topic: 'bench', partition: 0, offset, timestampMs: 0 }),
    encode(entries) {
      const merged = mergeRows(entries.map((rows) => ({ rows })))
      let bytes = 0
      for (const table of tableNames) if (merged[table].length > 0) bytes += tableBlock(table, merged).length
      return bytes
    },
    metrics(rows) {
      if (firstDeliveries) {
        const { known } = firstDeliveries
        const divided = firstDeliveries.divideFirstDeliveries(rows, (session: string) => known.has(session))
        known.add(divided.first.conversations.map((row: { session_id: string }) => row.session_id))
        domain.recordConversations(metrics, rows.conversations, rows.conversation_items)
        return
      }
      const fresh = domain.newConversations(rows, new Set())
      domain.recordConversations(metrics, fresh.conversations, fresh.items)
    },
  }
}

const stages: Record<Code, Stages> = { A: await stagesOf(dirs.A), B: await stagesOf(dirs.B) }
const cpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

async function run(code: Code) {
  const stage = stages[code]
  const spent = { decode: 0, rows: 0, encode: 0, metrics: 0 }
  // As in the worker, a write's rows wait while later batches are decoded and transformed (its
  // pending batches), so they are promoted out of the young generation before they are encoded.
  const waiting: Rows[][] = []
  const write = (rows: Rows[]) => {
    let at = cpuMs()
    stage.encode(rows)
    spent.encode += cpuMs() - at
    at = cpuMs()
    for (const entry of rows) stage.metrics(entry)
    spent.metrics += cpuMs() - at
  }
  for (let start = 0; start < total; start += perWrite) {
    const slice = messages.slice(start, start + perWrite)
    let at = cpuMs()
    const records: unknown[] = []
    for (const value of slice) records.push(await stage.decode(value))
    spent.decode += cpuMs() - at
    at = cpuMs()
    waiting.push(records.map((record, index) => stage.rows(record, start + index)))
    spent.rows += cpuMs() - at
    if (waiting.length > pending) write(waiting.shift()!)
  }
  while (waiting.length > 0) write(waiting.shift()!)
  const perConversation = (ms: number) => (ms / total).toFixed(3)
  const sum = spent.decode + spent.rows + spent.encode + spent.metrics
  console.log(
    `| ${code} | ${perConversation(spent.decode)} | ${perConversation(spent.rows)} | ${perConversation(spent.encode)} | ` +
      `${perConversation(spent.metrics)} | ${perConversation(sum)} | ${heldMb[code]?.toFixed(1) ?? '–'} | ${loadavg()[0]!.toFixed(2)} |`,
  )
}

/**
 * What the rows of one write hold while it is pending, in a pass of its own (needs --expose-gc):
 * a GC forced inside the measured loop slows the next stage's reading of the rows ~3x (0.45-0.55
 * against 0.11-0.18 ms per conversation for merge + encode, #12 nativedirect), which no worker sees.
 */
async function heldRowsMb(code: Code): Promise<number | undefined> {
  const gc = globalThis.gc
  if (!gc) return undefined
  const stage = stages[code]
  const records: unknown[] = []
  for (const value of messages.slice(0, perWrite)) records.push(await stage.decode(value))
  gc()
  const before = process.memoryUsage().heapUsed
  const rows = records.map((record, index) => stage.rows(record, index))
  gc()
  const mb = (process.memoryUsage().heapUsed - before) / 1e6
  return rows.length > 0 ? mb : undefined
}
const heldMb: Partial<Record<Code, number>> = { A: await heldRowsMb('A'), B: await heldRowsMb('B') }

console.log(`${total} conversations (~${pool.itemsPerConversation.toFixed(0)} items), ${perWrite} per write`)
console.log(
  '| code | decode ms/conv | rows ms/conv | merge+encode ms/conv | plan+metrics ms/conv | sum | rows heap per write MB | load |',
)
console.log('|---|---|---|---|---|---|---|---|')
// Warm-up (JIT) for both, then A B B A per round. BENCH_ONLY=B runs one code (e.g. under --cpu-prof).
const only = process.env.BENCH_ONLY as Code | undefined
const order: Code[] = only
  ? [only, only, only]
  : ['A', 'B', ...Array.from({ length: rounds }, () => ['A', 'B', 'B', 'A'] as Code[]).flat()]
for (const code of order) await run(code)
