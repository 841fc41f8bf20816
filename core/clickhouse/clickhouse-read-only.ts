import type { ClickHouseClient } from './clickhouse.ts'
import { ReadOnlyQueryRefused } from './clickhouse-errors.ts'
import {
  checkFormatName,
  type FunctionCatalog,
  type FunctionEntry,
  parseExplainAst,
  readOnlyRefusal,
} from './read-only-sql-check.ts'

// Analysts' SQL, read-only: `voice-analytics query` and the SQL endpoint of `npm run dev`.
// readonly = 1 is the engine's own guard: no writes, no DDL, no settings changes, no table
// functions that read files or the network. It is the last setting sent, and chDB keeps settings
// for its session, so an embedded client must be a fresh session per query (it stays read-only
// for good). final = 1 reads every ReplacingMergeTree table as if with FINAL, so a naive count
// counts each row once. Before running, the query is checked on the engine's own parse
// (read-only-sql-check.ts), and what runs is the engine's formatting of what was checked.

export interface ReadOnlyQuery {
  sql: string
  /** Any ClickHouse output format, e.g. PrettyCompact, TSVWithNames, JSONEachRow, CSV. */
  format: string
  final: boolean
}

/** The engine's guard, last: once set, the session can change no setting (not even `final`). */
export const readOnlySettings = (final: boolean) =>
  // chDB allows introspection functions (addressToSymbol, ...) by default: not here.
  ({ final: final ? 1 : 0, allow_introspection_functions: 0, readonly: '1' }) as const

async function readText(result: { stream: AsyncIterable<unknown> }): Promise<string> {
  let text = ''
  for await (const chunk of result.stream) text += chunk
  return text
}

/** The query as the engine formats it; the engine refuses several statements here. */
async function canonicalQuery(client: ClickHouseClient, sql: string, final: boolean): Promise<string> {
  const result = await client.query({
    query: 'SELECT formatQuerySingleLine({sql:String}) AS sql',
    query_params: { sql },
    format: 'JSONEachRow',
    clickhouse_settings: readOnlySettings(final),
  })
  const [row] = await result.json<{ sql: string }>()
  if (!row) throw new ReadOnlyQueryRefused('no statement')
  return row.sql
}

async function functionCatalog(client: ClickHouseClient, final: boolean): Promise<FunctionCatalog> {
  const settings = readOnlySettings(final)
  const functions = await client.query({
    query: 'SELECT name, alias_to, categories, case_insensitive, is_aggregate FROM system.functions',
    format: 'JSONEachRow',
    clickhouse_settings: settings,
  })
  const combinators = await client.query({
    query: 'SELECT name FROM system.aggregate_function_combinators',
    format: 'JSONEachRow',
    clickhouse_settings: settings,
  })
  return {
    functions: await functions.json<FunctionEntry>(),
    combinators: (await combinators.json<{ name: string }>()).map((row) => row.name),
  }
}

/** Throws ReadOnlyQueryRefused for anything but a read of the pipeline's tables; returns the SQL to run. */
export async function checkReadOnlyQuery(client: ClickHouseClient, query: ReadOnlyQuery): Promise<string> {
  checkFormatName(query.format)
  const sql = await canonicalQuery(client, query.sql, query.final)
  // One statement (checked above), so nothing after EXPLAIN AST can run as a statement of its own.
  const explained = await client.exec({
    query: `EXPLAIN AST ${sql}`,
    clickhouse_settings: { ...readOnlySettings(query.final), default_format: 'TSVRaw' as 'TabSeparated' },
  })
  const refusal = readOnlyRefusal(
    parseExplainAst(await readText(explained)),
    await functionCatalog(client, query.final),
  )
  if (refusal) throw new ReadOnlyQueryRefused(`refused: ${refusal}`)
  return sql
}

export async function runReadOnlyQuery(client: ClickHouseClient, query: ReadOnlyQuery): Promise<string> {
  const sql = await checkReadOnlyQuery(client, query)
  const result = await client.exec({
    query: sql,
    // Any format: the text goes to the caller as it is, so the client's format list does not apply.
    clickhouse_settings: {
      ...readOnlySettings(query.final),
      default_format: query.format as 'TabSeparated',
    },
  })
  return readText(result)
}
