import { type ClickHouseClient, insertNativeBlock } from '../../../core/clickhouse/clickhouse.ts'
import { nativeBlockEncoder } from '../../../core/clickhouse/clickhouse-native-format.ts'
import { agentHours, recomputeLatencyHours } from '../../../core/clickhouse/latency-hour-rollup.ts'
import {
  type TableName,
  type TableRows,
  tableColumns,
  tableNames,
  tableNativeColumns,
} from '../transform/table-rows.ts'

// One write = one insert per table that has rows, each carrying the write's deduplication token.
// Rows go as one Native block per table, encoded column by column from the row objects with the
// wire types of table-rows.ts: no text to build in JS nor to parse in the engine, about half the
// CPU of JSONCompactEachRow per write (bench/experiments/insert-route-ab.ts at 1cd1657971). Settings are given on every
// insert, never inherited from an earlier one (chDB's generic path keeps SET values for its session).
export interface TableWrite {
  table: TableName
  rows: number
  seconds: number
}

export const insertSettings = {
  deduplicate_blocks_in_dependent_materialized_views: 1,
  async_insert: 0,
  // A backfill over more months than max_partitions_per_insert_block (100) is written as it is, a
  // warning in ClickHouse's log instead of a refusal: split by partition it made as many parts, and
  // every piece paid a write of its own (#30: 600 months posted at once took minutes, not seconds).
  throw_on_max_partitions_per_insert_block: 0,
  // A tombstone leaves most columns out: ClickHouse fills their defaults (clickhouse-native-format.ts).
  input_format_null_as_default: 1,
  // Cluster mode (CLICKHOUSE_CLUSTER): the tables are Distributed; the insert returns only once every
  // shard holds its rows under this write's token, never from a queue on the node that took it
  // (docs/scaling.md, "Cluster mode"). No effect on a table that is not Distributed.
  distributed_foreground_insert: 1,
} as const

const encoders = Object.fromEntries(
  tableNames.map((table) => [table, nativeBlockEncoder(table, tableNativeColumns[table])]),
) as Record<TableName, ReturnType<typeof nativeBlockEncoder>>

/** A table's rows of a write as the Native block its insert sends. */
export const tableBlock = (table: TableName, rows: TableRows): Buffer =>
  encoders[table](rows[table] as unknown as Record<string, unknown>[])

async function insertTable(
  client: ClickHouseClient,
  database: string,
  table: TableName,
  rows: TableRows,
  token: string,
): Promise<TableWrite | undefined> {
  const tableRows = rows[table] as unknown as Record<string, unknown>[]
  if (tableRows.length === 0) return undefined
  const started = performance.now()
  await insertNativeBlock(client, {
    table: `${database}.${table}`,
    columns: tableColumns[table],
    block: tableBlock(table, rows),
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

/**
 * insertTableRows, then the hour rollup of every agent-hour whose rows the rollup feed just changed
 * (latency-hour-rollup.ts): for rows loaded outside the worker (tests, benchmarks), whose hours its
 * keeper recomputes off the write (hour-rollup-keeper.ts).
 */
export async function insertRowsAndHourRollup(
  client: ClickHouseClient,
  database: string,
  rows: TableRows,
  token: string,
  itemsClient?: ClickHouseClient,
): Promise<TableWrite[]> {
  const writes = await insertTableRows(client, database, rows, token, itemsClient)
  const hours = agentHours(rows.agent_latency_feed)
  if (hours.length > 0) await recomputeLatencyHours(client, database, hours)
  return writes
}
