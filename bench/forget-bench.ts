import { homedir, loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createClickHouse } from '../core/clickhouse/clickhouse.ts'
import { toAvroRecord } from '../core/event/event-record.ts'
import { forgetConversations } from '../core/privacy/erasure/forget-conversations.ts'
import { conversationStream } from '../generator/conversation-generator.ts'
import { conversationRows } from '../services/worker/transform/conversation-rows.ts'
import { mergeRows } from '../services/worker/write/batch-rows.ts'
import { insertRowsAndHourRollup } from '../services/worker/write/clickhouse-insert.ts'

// `npm run bench:forget` (#24): `forget` of one caller in the queries benchmark's database of
// 1,000,000 conversations (`npm run bench:queries` builds it; the caller with the most calls there up
// to 1,000 — a seed number copied into every copy of its conversations; the few numbers with more are
// the agents' own outbound lines, not callers), timed with the rows it touches, and
// the rate of the worker's own transform + insert (the ingest path) before and while the erasure
// runs, in one process on the same engine. It changes the database: the caller is gone afterwards
// and the conversations inserted for the rate stay (a few thousand of a million).
const { values: args } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: join(homedir(), '.cache/voice-analytics/bench-queries') },
    database: { type: 'string', default: 'qbench_m' },
    'rate-seconds': { type: 'string', default: '20' },
  },
})
const database = args.database!
const client = createClickHouse({
  CLICKHOUSE_DATA_DIR: args['data-dir']!,
  CLICKHOUSE_USER: 'default',
  CLICKHOUSE_PASSWORD: '',
})
const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')

async function one<T>(query: string): Promise<T> {
  const result = await client.query({
    query,
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  return (await result.json<T>())[0]!
}

/** The worker's transform and Native insert of generated conversations, 200 a write, until `until()`. */
async function ingest(
  until: () => boolean,
  seed: number,
): Promise<{ conversations: number; seconds: number }> {
  const started = performance.now()
  const stream = conversationStream({
    count: 1_000_000,
    seed,
    historyItems: 40,
    from: Date.now() - 3600_000,
    spanHours: 1,
  })
  let written = 0
  let batch: { rows: ReturnType<typeof conversationRows> }[] = []
  for (const event of stream) {
    batch.push({
      rows: conversationRows(toAvroRecord(event, { source: 'prod', receivedAt: Date.now() }), {
        topic: 'bench-forget',
        partition: 0,
        offset: seed * 1_000_000 + written + batch.length,
        timestampMs: Date.now(),
      }),
    })
    if (batch.length < 200) continue
    await insertRowsAndHourRollup(client, database, mergeRows(batch), `bench-forget-${seed}-${written}`)
    written += batch.length
    batch = []
    if (until()) break
  }
  return { conversations: written, seconds: (performance.now() - started) / 1000 }
}

const total = await one<{ n: number }>(`SELECT count() AS n FROM ${database}.conversations FINAL`)
const caller = await one<{ phone: string; calls: number }>(
  `SELECT from_number AS phone, count() AS calls FROM ${database}.conversations FINAL
    WHERE from_number IS NOT NULL GROUP BY phone HAVING calls <= 1000 ORDER BY calls DESC LIMIT 1`,
)
console.log(
  `${database}: ${total.n} conversations; caller (at most 1,000 calls) with the most calls: ${caller.calls} calls; load ${load()}`,
)

const rateSeconds = Number(args['rate-seconds'])
const before = performance.now()
const alone = await ingest(() => performance.now() - before > rateSeconds * 1000, 1)
console.log(
  `ingest alone: ${(alone.conversations / alone.seconds).toFixed(0)} conversations/s (${alone.conversations} in ${alone.seconds.toFixed(1)} s); load ${load()}`,
)

const request = {
  selector: { kind: 'phone' as const, value: caller.phone },
  phoneHmacKey: undefined,
  auditKey: 'bench-forget-audit-key-of-32-characters',
  command: 'bench:forget',
}
const dryStarted = performance.now()
const dry = await forgetConversations(client, { database }, { ...request, dryRun: true })
const dryMs = performance.now() - dryStarted
const rowsFound = Object.values(dry.found).reduce((sum, rows) => sum + rows, 0)
console.log(
  `dry run: ${dry.sessionIds.length} conversations, ${rowsFound} rows in ${Object.keys(dry.found).length} tables, ${dryMs.toFixed(0)} ms`,
)

let erasing = true
const during = ingest(() => !erasing, 2)
const started = performance.now()
const report = await forgetConversations(client, { database }, request)
const erasureMs = performance.now() - started
erasing = false
const concurrent = await during
console.log(
  `forget: ${erasureMs.toFixed(0)} ms (find, record, remove with mutations waited for, verify); removed ${JSON.stringify(report.removed)}; ${report.verification}`,
)
console.log(
  `ingest while erasing: ${(concurrent.conversations / concurrent.seconds).toFixed(0)} conversations/s (${concurrent.conversations} in ${concurrent.seconds.toFixed(1)} s) vs ${(alone.conversations / alone.seconds).toFixed(0)} alone; load ${load()}`,
)
await client.close()
