import type { Command } from 'commander'
import { createClickHouse } from '../../core/clickhouse.ts'
import { openClickHouse } from '../../core/clickhouse-open.ts'
import { type ReadOnlyQuery, runReadOnlyQuery } from '../../core/clickhouse-read-only.ts'
import { type Config, loadConfig } from '../../core/env.ts'
import { localStateDir, readLocalSecret } from '../../core/local-secret.ts'
import { queryOutputFormat } from '../query/output-format.ts'

// `query "<SQL>"`: read-only SQL against the pipeline's ClickHouse. With CLICKHOUSE_URL, the
// server; embedded, the SQL endpoint of a running `npm run dev` (which owns the data directory),
// else the data directory itself. The endpoint's token is the one `npm run dev` keeps in the
// state directory of this checkout (VA_STATE_DIR, default ./data).
async function viaDevEndpoint(config: Config, query: ReadOnlyQuery): Promise<string | undefined> {
  const url = new URL(`http://127.0.0.1:${config.DEV_SQL_PORT}/`)
  url.searchParams.set('default_format', query.format)
  url.searchParams.set('final', query.final ? '1' : '0')
  const token = await readLocalSecret(localStateDir(), 'sql-endpoint-token')
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      body: query.sql,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    })
  } catch {
    return undefined // nobody listening: no `npm run dev`
  }
  const text = await response.text()
  if (!response.ok) throw new Error(text.trim())
  return text
}

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
      let text: string | undefined
      if (config.CLICKHOUSE_URL) {
        const client = createClickHouse(config)
        try {
          text = await runReadOnlyQuery(client, query)
        } finally {
          await client.close()
        }
      } else {
        text = await viaDevEndpoint(config, query)
        if (text === undefined) {
          const client = openClickHouse(
            config,
            `run \`npm run dev\` (it serves SQL on port ${config.DEV_SQL_PORT}) or stop that process`,
          )
          try {
            text = await runReadOnlyQuery(client, query)
          } finally {
            await client.close()
          }
        }
      }
      process.stdout.write(text)
    })
}
