import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { createClickHouse } from '../../core/clickhouse/clickhouse.ts'
import { openClickHouse } from '../../core/clickhouse/clickhouse-open.ts'
import { type ReadOnlyQuery, runReadOnlyQuery } from '../../core/clickhouse/clickhouse-read-only.ts'
import type { Config } from '../../core/settings/env.ts'
import { postToDevEndpoint } from './dev-endpoint-client.ts'

// Where a command's ClickHouse work goes. With CLICKHOUSE_URL, the server. Embedded, only one
// process may hold the data directory: a running `./run dev` (its SQL endpoint does the work), else
// the data directory itself; a worker holding it is refused with what to do instead.

async function withClient<T>(config: Config, use: (client: ClickHouseClient) => Promise<T>): Promise<T> {
  const client = config.CLICKHOUSE_URL
    ? createClickHouse(config)
    : openClickHouse(
        config,
        `run \`./run dev\` (its endpoint on port ${config.DEV_SQL_PORT} does this) or stop that process`,
      )
  try {
    return await use(client)
  } finally {
    await client.close()
  }
}

/** Read-only SQL (`query`, `prices list`), its output as text in the query's format. */
export async function runQueryRouted(config: Config, query: ReadOnlyQuery): Promise<string> {
  if (!config.CLICKHOUSE_URL) {
    const text = await postToDevEndpoint(config, '/', query.sql, {
      default_format: query.format,
      final: query.final ? '1' : '0',
    })
    if (text !== undefined) return text
  }
  return withClient(config, (client) => runReadOnlyQuery(client, query))
}

/**
 * A write: `direct` with a client of its own, or, when `./run dev` holds the embedded data
 * directory, the body posted to its endpoint's `path` (which does the same write).
 */
export async function writeRouted(
  config: Config,
  path: string,
  body: string,
  direct: (client: ClickHouseClient) => Promise<string>,
): Promise<string> {
  if (!config.CLICKHOUSE_URL) {
    const text = await postToDevEndpoint(config, path, body)
    if (text !== undefined) return text
  }
  return withClient(config, direct)
}
