import type { ClickHouseClient } from '../core/clickhouse.ts'
import { type TableName, type TableRows, tableColumns, tableNames } from './table-rows.ts'

// One write = one insert per table that has rows, children first and the conversation last,
// each carrying the write's deduplication token. Rows go as JSONCompactEachRow (values in the
// column order of table-rows.ts). Settings are given on every insert: chDB keeps SET values for
// its session, so a token must never be inherited from an earlier insert.
export interface TableWrite {
  table: TableName
  rows: number
  seconds: number
}

export const insertSettings = {
  deduplicate_blocks_in_dependent_materialized_views: 1,
  // Float64 metrics must arrive to the bit.
  precise_float_parsing: 1,
  async_insert: 0,
} as const

export async function insertTableRows(
  client: ClickHouseClient,
  database: string,
  rows: TableRows,
  token: string,
): Promise<TableWrite[]> {
  const writes: TableWrite[] = []
  for (const table of tableNames) {
    const tableRows = rows[table] as unknown as Record<string, unknown>[]
    if (tableRows.length === 0) continue
    const columns = tableColumns[table] as readonly string[]
    const started = performance.now()
    await client.insert({
      table: `${database}.${table}`,
      columns: columns as [string, ...string[]],
      format: 'JSONCompactEachRow',
      values: tableRows.map((row) => columns.map((column) => row[column])),
      clickhouse_settings: { ...insertSettings, insert_deduplication_token: token },
    })
    writes.push({ table, rows: tableRows.length, seconds: (performance.now() - started) / 1000 })
  }
  return writes
}
