import type { ClickHouseClient } from './clickhouse.ts'

// Retention is configuration (CLICKHOUSE_TTL_DAYS, CLICKHOUSE_ROLLUP_TTL_DAYS), not a migration:
// after migrating, each table's TTL is brought to the configured number of days (0 = keep all).
// Only a table whose TTL differs is altered, so a restart with the same setting changes nothing.
export const conversationTables = [
  'conversations',
  'conversation_items',
  'tool_calls',
  'handoffs',
  'test_results',
  'campaign_items',
] as const
export const rollupTables = ['agent_latency_minute'] as const

const timeColumn: Record<string, string> = { agent_latency_minute: 'minute' }

export interface RetentionSettings {
  conversationDays: number
  rollupDays: number
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

/** Applies the configured retention; returns the statements it ran. */
export async function applyRetention(
  client: ClickHouseClient,
  database: string,
  settings: RetentionSettings,
): Promise<string[]> {
  const wanted = new Map<string, number>([
    ...conversationTables.map((table) => [table, settings.conversationDays] as const),
    ...rollupTables.map((table) => [table, settings.rollupDays] as const),
  ])
  const result = await client.query({
    query: 'SELECT name, engine_full FROM system.tables WHERE database = {database:String}',
    query_params: { database },
    format: 'JSONEachRow',
  })
  const ran: string[] = []
  for (const { name, engine_full } of await result.json<{ name: string; engine_full: string }>()) {
    const days = wanted.get(name)
    if (days === undefined || (ttlDays(engine_full) ?? 0) === days) continue
    const statement = ttlStatement(database, name, days)
    await client.command({ query: statement })
    ran.push(statement)
  }
  return ran
}
