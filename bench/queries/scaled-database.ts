import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Session } from 'chdb'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { recomputeEveryLatencyHour } from '../../core/clickhouse/latency-hour-rollup.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { conversationStream } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { mergeRows } from '../../services/worker/write/batch-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import {
  type ColumnInfo,
  copiedAsTheyAre,
  copyStatement,
  type TableInfo,
  tablesToCopy,
} from './scaled-copy-sql.ts'

// The data of the queries benchmark: a seed database filled by the worker's own transform
// (conversation-rows.ts) and Native insert (clickhouse-insert.ts) with generated conversations, then
// one database per size scaled from it inside ClickHouse (scaled-copy-sql.ts) over the 30 days
// before the build. A database is built once and reused (its description beside the data says
// what it holds); `rebuild` drops and builds it again. A database reused is migrated first, as a
// worker's start would: the time a migration takes on this much data is part of the report.

const day = 86_400

export interface ScaledDatabase {
  database: string
  conversations: number
  /** The data's end: every window ends here. */
  end: string
  buildSeconds: number
  seedConversations: number
  /** Migrations applied to the built data afterwards, and how long each run took. */
  migrations?: { versions: string[]; seconds: number }[]
}

export interface BuildOptions {
  dataDir: string
  seedConversations: number
  rebuild: boolean
  /** Reuse a database without applying the migrations added since its build (a before/after comparison). */
  keepSchema: boolean
  log: (line: string) => void
}

// _2: seeds whose agents change their instructions halfway (#32), so the agent-change panels have rows
const seedDatabase = 'qbench_seed_2'
// The seed's conversations start within this hour; every copy then moves them into the 30 days.
const seedFrom = Date.parse('2025-06-02T06:00:00Z')
const seedSpanHours = 1

const describedAt = (dataDir: string, database: string) => join(dataDir, `${database}.json`)

async function rows<T>(session: Session, query: string): Promise<T[]> {
  const result = await session.queryAsync(query, { format: 'JSONEachRow' })
  return result
    .text()
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as T)
}

async function conversationCount(session: Session, database: string): Promise<number> {
  const [row] = await rows<{ n: string }>(
    session,
    `SELECT toString(count()) AS n FROM system.tables WHERE database = '${database}' AND name = 'conversations'`,
  )
  if (row?.n === '0') return 0
  const [stored] = await rows<{ n: string }>(
    session,
    `SELECT toString(count()) AS n FROM ${database}.conversations`,
  )
  return Number(stored?.n ?? 0)
}

/** The seed: generated conversations through the worker's transform and Native insert, once. */
async function ensureSeed(client: ClickHouseClient, session: Session, options: BuildOptions): Promise<void> {
  if ((await conversationCount(session, seedDatabase)) === options.seedConversations) {
    // A seed kept from before a migration gets it, as a worker's start would give its data: the
    // copies read the seed's columns, which must be the new schema's (a fresh L build failed on a
    // seed from before 0008).
    await runMigrations(client, seedDatabase)
    return
  }
  await session.queryAsync(`DROP DATABASE IF EXISTS ${seedDatabase} SYNC`)
  await runMigrations(client, seedDatabase)
  const started = performance.now()
  const stream = conversationStream({
    count: options.seedConversations,
    seed: 23,
    from: seedFrom,
    spanHours: seedSpanHours,
    historyItems: 40,
    failedRoomRate: 0.08,
    testRunRate: 0.25,
    campaignRate: 0.4,
    webCallRate: 0.15,
    versionChanges: Array.from({ length: 6 }, (_, agentIndex) => ({
      agentIndex,
      at: seedFrom + (seedSpanHours / 2) * 3600_000,
      instruction: 'Always offer a callback.',
      addedSeconds: 0.2,
    })),
  })
  let batch: { rows: ReturnType<typeof conversationRows> }[] = []
  let offset = 0
  const flush = async () => {
    await insertTableRows(client, seedDatabase, mergeRows(batch), `qbench-seed-${offset}`)
    batch = []
  }
  for (const event of stream) {
    const receivedAt = seedFrom + seedSpanHours * 3600_000
    const record = toAvroRecord(event, { source: offset % 5 === 0 ? 'staging' : 'prod', receivedAt })
    batch.push({
      rows: conversationRows(record, { topic: 'qbench', partition: 0, offset, timestampMs: receivedAt }),
    })
    offset++
    if (batch.length === 500) await flush()
  }
  if (batch.length > 0) await flush()
  options.log(
    `seed: ${offset} generated conversations through the worker's transform and insert in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  )
}

async function tablesOf(session: Session, database: string): Promise<TableInfo[]> {
  const tables = await rows<{ name: string; engine: string; create_table_query: string }>(
    session,
    `SELECT name, engine, create_table_query FROM system.tables WHERE database = '${database}'`,
  )
  const sourcesOf = new Map<string, string[]>()
  for (const dependency of await rows<{ name: string; view: string }>(
    session,
    `SELECT name, arrayJoin(dependencies_table) AS view FROM system.tables WHERE database = '${database}'`,
  ))
    sourcesOf.set(dependency.view, [...(sourcesOf.get(dependency.view) ?? []), dependency.name])
  return tables.map((table) => ({
    name: table.name,
    engine: table.engine,
    viewTarget: /^CREATE MATERIALIZED VIEW \S+ TO [^.\s]+\.(\w+)/.exec(table.create_table_query)?.[1],
    viewSources: sourcesOf.get(table.name) ?? [],
  }))
}

async function columnsOf(session: Session, database: string): Promise<Map<string, ColumnInfo[]>> {
  const columns = await rows<{ table: string; name: string; type: string; default_kind: string }>(
    session,
    `SELECT table, name, type, default_kind FROM system.columns WHERE database = '${database}' ORDER BY table, position`,
  )
  const byTable = new Map<string, ColumnInfo[]>()
  for (const column of columns)
    byTable.set(column.table, [
      ...(byTable.get(column.table) ?? []),
      { name: column.name, type: column.type, defaultKind: column.default_kind },
    ])
  return byTable
}

/** Waits until no merge of the database runs (merges that real data would have had by now). */
async function settleMerges(session: Session, database: string, log: (line: string) => void) {
  const started = performance.now()
  for (let quiet = 0; quiet < 3; ) {
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const [running] = await rows<{ n: number }>(
      session,
      `SELECT count() AS n FROM system.merges WHERE database = '${database}'`,
    )
    quiet = running?.n === 0 ? quiet + 1 : 0
  }
  log(`${database}: merges settled after ${((performance.now() - started) / 1000).toFixed(0)} s`)
}

/** The database of `conversations` copies of the seed, built now unless present. */
export async function scaledDatabase(
  client: ClickHouseClient,
  session: Session,
  database: string,
  conversations: number,
  options: BuildOptions,
): Promise<ScaledDatabase> {
  const described = describedAt(options.dataDir, database)
  if (!options.rebuild && existsSync(described)) {
    const built = JSON.parse(readFileSync(described, 'utf8')) as ScaledDatabase
    if (built.conversations === conversations && (await conversationCount(session, database)) > 0) {
      if (options.keepSchema) return built
      // As a worker's start would: migrations added since the build convert the data (timed).
      const started = performance.now()
      const { applied } = await runMigrations(client, database)
      if (applied.length === 0) return built
      const migrated = {
        versions: applied.map((migration) => `${migration.version}_${migration.name}`),
        seconds: Math.round((performance.now() - started) / 1000),
      }
      options.log(`${database}: migrated ${migrated.versions.join(', ')} in ${migrated.seconds} s`)
      await settleMerges(session, database, options.log)
      const updated = { ...built, migrations: [...(built.migrations ?? []), migrated] }
      writeFileSync(described, `${JSON.stringify(updated, null, 2)}\n`)
      return updated
    }
  }
  const copies = Math.round(conversations / options.seedConversations)
  if (copies * options.seedConversations !== conversations)
    throw new Error(
      `${conversations} conversations is not a whole number of seeds of ${options.seedConversations}`,
    )
  await ensureSeed(client, session, options)
  const started = performance.now()
  await session.queryAsync(`DROP DATABASE IF EXISTS ${database} SYNC`)
  await runMigrations(client, database)
  const end = new Date(Math.floor(Date.now() / 60_000) * 60_000)
  // Seed times land in [end - 30 d - 1 h, end - 1 h) plus their own hour: the 30 days before the end.
  const baseShiftSeconds = Math.floor((end.getTime() - seedFrom) / 1000) - 30 * day - seedSpanHours * 3600
  const columns = await columnsOf(session, seedDatabase)
  const tables = tablesToCopy(await tablesOf(session, seedDatabase), (table) =>
    (columns.get(table) ?? []).some((column) => column.name === 'session_id'),
  )
  const perInsert = Math.max(1, Math.floor(200_000 / options.seedConversations))
  for (let first = 0; first < copies; first += perInsert) {
    for (const table of tables)
      await session.queryAsync(
        `${copyStatement({
          sourceDatabase: seedDatabase,
          targetDatabase: database,
          table,
          columns: columns.get(table)!,
          firstCopy: first,
          endCopy: Math.min(copies, first + perInsert),
          baseShiftSeconds,
          spreadMinutes: 30 * 24 * 60,
        })}\nSETTINGS insert_deduplicate = 0`,
      )
    options.log(
      `${database}: ${Math.min(copies, first + perInsert) * options.seedConversations} of ${conversations} conversations (${((performance.now() - started) / 1000).toFixed(0)} s)`,
    )
  }
  for (const table of copiedAsTheyAre)
    await session.queryAsync(`INSERT INTO ${database}.${table} SELECT * FROM ${seedDatabase}.${table}`)
  // The hour rollup is recomputed from the minute rollup, as the worker does after each write.
  await recomputeEveryLatencyHour(client, database)
  await settleMerges(session, database, options.log)
  const built: ScaledDatabase = {
    database,
    conversations,
    end: end.toISOString(),
    buildSeconds: Math.round((performance.now() - started) / 1000),
    seedConversations: options.seedConversations,
  }
  writeFileSync(described, `${JSON.stringify(built, null, 2)}\n`)
  return built
}
