import type { ClickHouseClient } from './clickhouse.ts'
import { ClusterDdl } from './clickhouse-cluster-ddl.ts'
import { localSuffix } from './cluster-ddl-layout.ts'

// Retention is configuration (CLICKHOUSE_TTL_DAYS, CLICKHOUSE_ROLLUP_TTL_DAYS for the worker;
// --ttl-days, --rollup-ttl-days for `migrate` and `replay`), not a migration: each table's TTL is
// brought to the number of days asked for (0 = keep all). Nothing asked for (undefined) leaves the
// TTL as it is, so a process started without a setting never undoes the retention someone chose.
// Only a table whose TTL differs is altered, so a restart with the same setting changes nothing.
export const conversationTables = [
  'conversations',
  'conversation_items',
  'tool_calls',
  'handoffs',
  'test_results',
  'campaign_items',
] as const
export const rollupTables = ['agent_latency_minute', 'agent_latency_hour', 'conversation_latency'] as const

const timeColumn: Record<string, string> = { agent_latency_minute: 'minute', agent_latency_hour: 'hour' }
/** Rollups without a session_id: in a cluster kept whole on every node, under their own name. */
const everywhereTables = new Set<string>(['agent_latency_hour'])

export interface RetentionSettings {
  /** undefined: leave the conversation tables' TTL as it is. */
  conversationDays?: number | undefined
  /** undefined: leave the rollup's TTL as it is. */
  rollupDays?: number | undefined
}

export interface TableEngine {
  name: string
  engine_full: string
}

/** The TTL days found in a table's engine_full text (undefined: no TTL). */
export function ttlDays(engineFull: string): number | undefined {
  const match = /\bTTL\b.*?toIntervalDay\((\d+)\)/.exec(engineFull)
  return match ? Number(match[1]) : undefined
}

export function ttlStatement(database: string, table: string, days: number): string {
  if (days === 0) return `ALTER TABLE ${database}.${table} REMOVE TTL`
  const column = timeColumn[table] ?? 'event_time'
  return `ALTER TABLE ${database}.${table} MODIFY TTL toDateTime(${column}) + INTERVAL ${days} DAY`
}

/** The ALTER statements that bring each table's TTL to the settings; none for a setting left out. */
export function retentionStatements(
  database: string,
  tables: readonly TableEngine[],
  settings: RetentionSettings,
): string[] {
  const wanted = new Map<string, number | undefined>([
    ...conversationTables.map((table) => [table, settings.conversationDays] as const),
    ...rollupTables.map((table) => [table, settings.rollupDays] as const),
  ])
  const statements: string[] = []
  for (const { name, engine_full } of tables) {
    const days = wanted.get(name)
    if (days === undefined || (ttlDays(engine_full) ?? 0) === days) continue
    statements.push(ttlStatement(database, name, days))
  }
  return statements
}

/**
 * In a cluster the TTL belongs to the shards' <table>_local tables (their engine_full says it): the
 * same statements in cluster form, ON CLUSTER on the local tables.
 */
export function clusterRetentionStatements(
  database: string,
  cluster: string,
  localTables: readonly TableEngine[],
  settings: RetentionSettings,
): string[] {
  const sharded = localTables
    .filter(({ name }) => name.endsWith(localSuffix))
    .map(({ name, engine_full }) => ({ name: name.slice(0, -localSuffix.length), engine_full }))
  const everywhere = localTables.filter(({ name }) => everywhereTables.has(name))
  const tables = [...sharded, ...everywhere]
  const ddl = new ClusterDdl(
    { cluster, database },
    new Map([
      ...sharded.map(({ name }) => [name, 'sharded'] as const),
      ...everywhere.map(({ name }) => [name, 'replicated'] as const),
    ]),
  )
  return retentionStatements(database, tables, settings).flatMap((statement) => ddl.translate(statement))
}

/** Applies the retention asked for; returns the statements it ran. */
export async function applyRetention(
  client: ClickHouseClient,
  database: string,
  settings: RetentionSettings,
  cluster?: string,
): Promise<string[]> {
  if (settings.conversationDays === undefined && settings.rollupDays === undefined) return []
  const result = await client.query({
    query: 'SELECT name, engine_full FROM system.tables WHERE database = {database:String}',
    query_params: { database },
    format: 'JSONEachRow',
  })
  const tables = await result.json<TableEngine>()
  const statements = cluster
    ? clusterRetentionStatements(database, cluster, tables, settings)
    : retentionStatements(database, tables, settings)
  for (const statement of statements) await client.command({ query: statement })
  return statements
}
