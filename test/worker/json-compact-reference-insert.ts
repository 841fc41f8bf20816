import type { ChdbExtension } from 'chdb/connection'
import {
  type TableName,
  type TableRows,
  tableColumns,
  tableNames,
} from '../../services/worker/transform/table-rows.ts'

// The route the worker wrote by before #12, kept as the reference the Native route is proven equal
// to (native-insert-equivalence.integration.test.ts) and measured against (bench/experiments/insert-route-ab.ts at 1cd1657971):
// each table's rows as JSONCompactEachRow text (values in the column order of table-rows.ts) through
// chDB's raw insert, with the settings it used.
export const jsonCompactSettings = {
  deduplicate_blocks_in_dependent_materialized_views: 1,
  // Float64 metrics must arrive to the bit.
  precise_float_parsing: 1,
  async_insert: 0,
  // Timestamps arrive as epoch milliseconds: the basic parser is enough and cheaper.
  date_time_input_format: 'basic',
} as const

/** JSONCompactEachRow text of a table's rows: what the old route built in JS. */
export function jsonCompactBody(table: TableName, rows: TableRows): Buffer {
  const columns = tableColumns[table] as readonly string[]
  return Buffer.from(
    (rows[table] as unknown as Record<string, unknown>[])
      .map((row) => JSON.stringify(columns.map((column) => row[column])))
      .join('\n'),
  )
}

/** One insert per table that has rows, in table order, each with the write's deduplication token. */
export async function insertTableRowsAsJsonCompact(
  session: ChdbExtension,
  database: string,
  rows: TableRows,
  token: string,
): Promise<void> {
  for (const table of tableNames) {
    if (rows[table].length === 0) continue
    await session.rawInsert({
      table: `${database}.${table}`,
      columns: tableColumns[table],
      format: 'JSONCompactEachRow',
      values: jsonCompactBody(table, rows),
      settings: { ...jsonCompactSettings, insert_deduplication_token: token },
    })
  }
}
