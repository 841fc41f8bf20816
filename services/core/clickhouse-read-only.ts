import type { ClickHouseClient } from './clickhouse.ts'

// Analysts' SQL, read-only: `voice-analytics query` and the SQL endpoint of `npm run dev`.
// readonly = 2 refuses writes and DDL but lets the query set its own settings; final = 1 reads
// every ReplacingMergeTree table as if with FINAL, so a naive count counts each row once.
export interface ReadOnlyQuery {
  sql: string
  /** Any ClickHouse output format, e.g. PrettyCompact, TSVWithNames, JSONEachRow, CSV. */
  format: string
  final: boolean
}

export async function runReadOnlyQuery(client: ClickHouseClient, query: ReadOnlyQuery): Promise<string> {
  const result = await client.exec({
    query: query.sql,
    // Any format: the text goes to the caller as it is, so the client's format list does not apply.
    clickhouse_settings: {
      readonly: '2',
      final: query.final ? 1 : 0,
      default_format: query.format as 'TabSeparated',
    },
  })
  let text = ''
  for await (const chunk of result.stream) text += chunk
  return text
}
