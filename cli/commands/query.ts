import type { Command } from 'commander'
import type { ReadOnlyQuery } from '../../core/clickhouse/clickhouse-read-only.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { runQueryRouted } from '../dev-endpoint/clickhouse-route.ts'
import { queryOutputFormat } from '../query/output-format.ts'

// `query "<SQL>"`: read-only SQL against the pipeline's ClickHouse. With CLICKHOUSE_URL, the
// server; embedded, the SQL endpoint of a running `npm run dev` (which owns the data directory),
// else the data directory itself (dev-endpoint/clickhouse-route.ts).
export function registerQueryCommand(program: Command): void {
  program
    .command('query')
    .description("run read-only SQL against the pipeline's ClickHouse (tables of database voice_analytics)")
    .argument(
      '<sql>',
      'the SQL, e.g. "SELECT agent_name, count() FROM voice_analytics.conversations GROUP BY agent_name"',
    )
    .option(
      '--format <format>',
      'ClickHouse output format (PrettyCompact, TSVWithNames, CSVWithNames, JSONEachRow, ...); ' +
        'default: PrettyCompact on a terminal, TabSeparated when piped or captured',
    )
    .option('--no-final', 'read tables as stored, before deduplication (default: every table as with FINAL)')
    .action(async (sql: string, options: { format?: string; final: boolean }) => {
      const config = loadConfig()
      const format = queryOutputFormat(options.format, process.stdout.isTTY === true)
      const query: ReadOnlyQuery = { sql, format, final: options.final }
      const text = await runQueryRouted(config, query)
      process.stdout.write(text)
    })
}
