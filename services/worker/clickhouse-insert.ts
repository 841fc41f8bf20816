import { type ClickHouseClient, insertCompactRows } from '../core/clickhouse.ts'
import { type TableName, type TableRows, tableColumns, tableNames } from './table-rows.ts'

// One write = one insert per table that has rows, each carrying the write's deduplication token. Rows go as JSONCompactEachRow (values in the
// column order of table-rows.ts). Settings are given on every insert, never inherited from an
// earlier one (chDB's generic path keeps SET values for its session).
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
  // Timestamps arrive as epoch milliseconds: the basic parser is enough and cheaper.
  date_time_input_format: 'basic',
} as const

async function insertTable(
  client: ClickHouseClient,
  database: string,
  table: TableName,
  rows: TableRows,
  token: string,
): Promise<TableWrite | undefined> {
  const tableRows = rows[table] as unknown as Record<string, unknown>[]
  if (tableRows.length === 0) return undefined
  const columns = tableColumns[table] as readonly string[]
  const started = performance.now()
  await insertCompactRows(client, {
    table: `${database}.${table}`,
    columns,
    rows: tableRows.map((row) => columns.map((column) => row[column])),
    settings: { ...insertSettings, insert_deduplication_token: token },
  })
  return { table, rows: tableRows.length, seconds: (performance.now() - started) / 1000 }
}

/**
 * With a second client (embedded: a second session on the same data directory), the item rows (most
 * of the work) are written on it while the other tables follow one another: two cores instead of one.
 * The conversation rows go last, once every other table acknowledged: a conversation stored at a
 * version means all its rows (and tombstones) of that version are stored, which the next delivery's
 * plan relies on.
 */
export async function insertTableRows(
  client: ClickHouseClient,
  database: string,
  rows: TableRows,
  token: string,
  itemsClient?: ClickHouseClient,
): Promise<TableWrite[]> {
  const insertAll = async (tables: readonly TableName[], on: ClickHouseClient) => {
    const writes: TableWrite[] = []
    for (const table of tables) {
      const write = await insertTable(on, database, table, rows, token)
      if (write) writes.push(write)
    }
    return writes
  }
  if (!itemsClient || itemsClient === client) return insertAll(tableNames, client)
  const [items, rest] = await Promise.all([
    insertAll(['conversation_items'], itemsClient),
    insertAll(
      tableNames.filter((table) => table !== 'conversation_items' && table !== 'conversations'),
      client,
    ),
  ])
  return [...items, ...rest, ...(await insertAll(['conversations'], client))]
}
