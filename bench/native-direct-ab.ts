import { loadavg } from 'node:os'
import { nativeBlockEncoder } from '../services/core/clickhouse-native-format.ts'
import type { AvroRecord } from '../services/core/event/event-record.ts'
import { createEventCodec, createSchemaRegistry } from '../services/core/event-codec.ts'
import { mergeRows } from '../services/worker/batch-rows.ts'
import { tableBlock } from '../services/worker/clickhouse-insert.ts'
import { conversationRows } from '../services/worker/conversation-rows.ts'
import {
  type TableName,
  type TableRows,
  tableNames,
  tableNativeColumns,
} from '../services/worker/table-rows.ts'
import { schemaRegistryUrl } from '../test/stack/servers.ts'
import { conversationPool, messageBytes } from './bench-conversations.ts'
import { directItems, type ItemsFragment, joinItems } from './native-direct-items.ts'

// `node bench/native-direct-ab.ts` (#12, nativedirect): is it worth encoding each message's rows into
// Native column bytes when it is transformed, instead of keeping row objects until the write merges
// and encodes them? Main-thread CPU per conversation (process.cpuUsage), in one process, variants
// alternating, on the bench's generated conversations (decoded once from the real registry's wire
// format; decode is not compared). As in the worker, a write's rows wait while later batches are
// transformed (BENCH_PENDING writes, default 4) and no GC is forced, so their promotion and the
// write's reading of older objects are in the figures.
// - rows: today — conversationRows per message, kept; at the write mergeRows + tableBlock (all tables).
// - eager: conversationRows, then each table's rows of the message encoded at once with today's
//   encoder and dropped; the write concatenates the fragments (Buffer.concat: the bytes a
//   column-wise join copies). What "encode per message" costs with the encoder as it is.
// - direct / direct-nowrite: conversation_items only, written straight into column bytes without
//   row objects (native-direct-items.ts, a prototype), the write joining them column by column;
//   nowrite: the same transform without the bytes. Set against rows' items: its transform (all
//   tables) + the items' merge and encode; it builds no rows for the other tables, so the
//   difference overstates the gain.
// Before measuring, direct's block is checked to be byte for byte today's. With --expose-gc, the
// memory one write holds until it is written (after a GC) is printed for rows and eager.
// BENCH_CONVERSATIONS (2,000), BENCH_WRITE (175 per write), BENCH_ROUNDS (2), BENCH_PENDING (4).
const total = Number(process.env.BENCH_CONVERSATIONS ?? 2000)
const perWrite = Number(process.env.BENCH_WRITE ?? 175)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const pending = Number(process.env.BENCH_PENDING ?? 4)

const schemaRegistry = createSchemaRegistry(schemaRegistryUrl())
const codec = await createEventCodec(schemaRegistry)
const pool = conversationPool(400)
const records: AvroRecord[] = []
for (let index = 0; index < total; index++)
  records.push((await schemaRegistry.decode(await messageBytes(codec, pool.event(index)))) as AvroRecord)

const delivery = (offset: number) => ({ topic: 'bench', partition: 0, offset, timestampMs: 0 })
const encoders = Object.fromEntries(
  tableNames.map((table) => [table, nativeBlockEncoder(table, tableNativeColumns[table])]),
) as Record<TableName, ReturnType<typeof nativeBlockEncoder>>

type Fragments = Partial<Record<TableName, Buffer>>
interface Variant<Held> {
  transform(record: AvroRecord, offset: number): Held
  write(held: Held[]): number
}
const variants = {
  rows: {
    transform: (record, offset) => conversationRows(record, delivery(offset)),
    write(held) {
      const merged = mergeRows(held.map((rows) => ({ rows })))
      let bytes = 0
      for (const table of tableNames) if (merged[table].length > 0) bytes += tableBlock(table, merged).length
      return bytes
    },
  } satisfies Variant<TableRows>,
  eager: {
    transform(record, offset) {
      const rows = conversationRows(record, delivery(offset))
      const fragments: Fragments = {}
      for (const table of tableNames) {
        const tableRows = rows[table] as unknown as Record<string, unknown>[]
        // Copied out: the encoder's buffer is sized for a write, not for one message.
        if (tableRows.length > 0) fragments[table] = Buffer.from(encoders[table](tableRows))
      }
      return fragments
    },
    write(held) {
      let bytes = 0
      for (const table of tableNames) {
        const parts = held.flatMap((fragments) => fragments[table] ?? [])
        if (parts.length > 0) bytes += Buffer.concat(parts).length
      }
      return bytes
    },
  } satisfies Variant<Fragments>,
  'rows-items': {
    transform: (record, offset) => conversationRows(record, delivery(offset)),
    write: (held) => tableBlock('conversation_items', mergeRows(held.map((rows) => ({ rows })))).length,
  } satisfies Variant<TableRows>,
  direct: {
    transform: (record) => directItems(record, 0),
    write: (held) => joinItems(held).length,
  } satisfies Variant<ItemsFragment>,
  'direct-nowrite': {
    transform: (record) => directItems(record, 0, false),
    write: () => 0,
  } satisfies Variant<ItemsFragment>,
} as const
type Name = keyof typeof variants

// The prototype writes exactly today's bytes, on every write of the run.
for (let start = 0; start < total; start += perWrite) {
  const sample = records.slice(start, start + perWrite)
  const today = tableBlock(
    'conversation_items',
    mergeRows(sample.map((record, index) => ({ rows: conversationRows(record, delivery(start + index)) }))),
  )
  const direct = joinItems(sample.map((record) => directItems(record, 0)))
  if (!today.equals(direct))
    throw new Error(`the prototype does not write tableBlock's bytes (write at ${start})`)
}
console.log(`direct items blocks = today's, byte for byte, on all ${total} conversations`)

const cpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

function run(name: Name) {
  const variant = variants[name] as Variant<unknown>
  let transformMs = 0
  let writeMs = 0
  const waiting: unknown[][] = []
  const write = (held: unknown[]) => {
    const at = cpuMs()
    variant.write(held)
    writeMs += cpuMs() - at
  }
  for (let start = 0; start < total; start += perWrite) {
    const at = cpuMs()
    const held = records
      .slice(start, start + perWrite)
      .map((record, index) => variant.transform(record, start + index))
    transformMs += cpuMs() - at
    waiting.push(held)
    if (waiting.length > pending) write(waiting.shift()!)
  }
  while (waiting.length > 0) write(waiting.shift()!)
  const per = (ms: number) => (ms / total).toFixed(3)
  console.log(
    `| ${name} | ${per(transformMs)} | ${per(writeMs)} | ${per(transformMs + writeMs)} | ${loadavg()[0]!.toFixed(2)} |`,
  )
}

/** What one write's held data costs after a GC: V8 heap, and the bytes of its fragments (needs --expose-gc). */
function held(name: 'rows' | 'eager') {
  const gc = globalThis.gc
  if (!gc) return
  gc()
  const before = process.memoryUsage().heapUsed
  const kept = records.slice(0, perWrite).map((record, index) => variants[name].transform(record, index))
  gc()
  const heap = process.memoryUsage().heapUsed - before
  let bytes = 0
  if (name === 'eager')
    for (const fragments of kept as Fragments[])
      for (const buffer of Object.values(fragments)) bytes += buffer.length
  console.log(
    `${name}: one write of ${kept.length} conversations holds ${(heap / 1e6).toFixed(1)} MB of V8 heap` +
      (name === 'eager' ? ` and ${(bytes / 1e6).toFixed(1)} MB of Native fragments outside it` : ''),
  )
}

console.log(
  `${total} conversations (~${pool.itemsPerConversation.toFixed(0)} items), ${perWrite} per write, ${pending} writes pending`,
)
held('rows')
held('eager')
console.log('| variant | transform ms/conv | write (merge+encode / join) ms/conv | sum | load |')
console.log('|---|---|---|---|---|')
const pairs: Name[][] = [
  ['rows', 'eager'],
  ['rows-items', 'direct', 'direct-nowrite'],
]
// Warm-up of each, then each group forwards and backwards per round.
for (const name of Object.keys(variants) as Name[]) run(name)
for (let round = 0; round < rounds; round++)
  for (const group of pairs) for (const name of [...group, ...[...group].reverse()]) run(name)
