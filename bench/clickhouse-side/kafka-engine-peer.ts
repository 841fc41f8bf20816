import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClickHouse } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { clickhouseSideStatements } from './clickhouse-side-sql.ts'
import { awaitHourRollup } from './hour-rollup-caught-up.ts'

// The peer a user would pick instead of the worker (#12): ClickHouse's own Kafka engine in chDB,
// reading TOPIC with kafka_format = 'AvroConfluent' into a fresh database migrated with the
// project's migrations, flattened by the views of views.sql. No code of ours on the path. Run in
// a process of its own by bench/worker-bench.ts: prints one JSON line once the conversations
// table holds TOTAL rows, the items table TOTAL_ITEMS and the hour rollup (a refreshable view,
// views.sql) counts what the minute rollup counts — the worker's clock includes its hour recompute
// too (conversations/s from the moment the Kafka table is read, CPU of this process), then waits
// for SIGTERM so the bench can read its peak RSS.
const total = Number(process.env.TOTAL)
const totalItems = Number(process.env.TOTAL_ITEMS ?? 0)
const maxBlockSize = Number(process.env.KAFKA_MAX_BLOCK_SIZE ?? 1000)
const flushIntervalMs = Number(process.env.KAFKA_FLUSH_INTERVAL_MS ?? 500)
const database = 'voice_analytics'
const dataDir = mkdtempSync(join(tmpdir(), 'va-bench-kafka-engine-'))
const clickhouse = createClickHouse({
  CLICKHOUSE_DATA_DIR: dataDir,
  CLICKHOUSE_USER: 'default',
  CLICKHOUSE_PASSWORD: '',
})
const cleanUp = async () => {
  await clickhouse.close().catch(() => {})
  rmSync(dataDir, { recursive: true, force: true })
}
process.once('SIGTERM', () => void cleanUp().then(() => process.exit(0)))

async function count(table: string): Promise<number> {
  const result = await clickhouse.query({
    query: `SELECT count() AS n FROM ${database}.${table}`,
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  const [row] = await result.json<{ n: number }>()
  return row!.n
}

/** Messages the Kafka table's consumers have read so far (system.kafka_consumers). */
async function messagesRead(): Promise<number> {
  const result = await clickhouse.query({
    query: `SELECT sum(num_messages_read) AS n FROM system.kafka_consumers WHERE database = '${database}'`,
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  const [row] = await result.json<{ n: number }>()
  return row?.n ?? 0
}

try {
  await runMigrations(clickhouse, database)
  const statements = clickhouseSideStatements(database, {
    kind: 'kafka',
    brokers: process.env.KAFKA_BROKERS!,
    topic: process.env.TOPIC!,
    group: `bench-kafka-engine-${Date.now()}`,
    registryUrl: process.env.SCHEMA_REGISTRY_URL!,
    maxBlockSize,
    flushIntervalMs,
  })
  // The Kafka table consumes once the last view (the flat one) reads it; the clock starts at the
  // first message read (below).
  const cpuBefore = process.cpuUsage()
  let started = 0
  for (const [index, statement] of statements.entries()) {
    if (index === statements.length - 1) started = performance.now()
    await clickhouse.command({ query: statement })
  }
  // Like the worker's clock (from its first batch), this one starts at the first message read,
  // not at the consumer group's join (seconds); the join shows in the line below if it is long.
  const created = started
  while ((await messagesRead()) === 0) {
    if (performance.now() - created > 120_000) throw new Error('the Kafka table read nothing in 2 min')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  started = performance.now()
  const joinSeconds = (started - created) / 1000
  let stored = 0
  let items = 0
  const deadline = Date.now() + 30 * 60_000
  // The views of one block run one after another: the conversations may be there before the
  // items of the same block, so both counts are awaited.
  while (stored < total || items < totalItems) {
    if (Date.now() > deadline)
      throw new Error(
        `only ${stored} of ${total} conversations, ${items} of ${totalItems} items after 30 min`,
      )
    await new Promise((resolve) => setTimeout(resolve, 100))
    stored = await count('conversations')
    if (stored >= total) items = await count('conversation_items')
  }
  await awaitHourRollup(clickhouse, database)
  const seconds = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  process.stdout.write(
    `${JSON.stringify({
      conversations: stored,
      items,
      seconds,
      perSecond: stored / seconds,
      joinSeconds,
      itemsPerSecond: items / seconds,
      cpuMsPerConversation: (cpu.user + cpu.system) / 1000 / stored,
    })}\n`,
  )
} catch (error) {
  process.stderr.write(`kafka engine peer failed: ${(error as Error).stack}\n`)
  await cleanUp()
  process.exit(1)
}
