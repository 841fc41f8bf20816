import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { type ClickHouseClient, createClickHouse } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'

// A throwaway embedded ClickHouse (chDB) for a test: its data directory, a migrated database, and
// reading its tables.

export const database = 'voice_analytics'

export function tempDataDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `va-${prefix}-`))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

export function embeddedClickHouse(dataDir: string): ClickHouseClient {
  return createClickHouse({
    CLICKHOUSE_DATA_DIR: dataDir,
    CLICKHOUSE_USER: 'default',
    CLICKHOUSE_PASSWORD: '',
  })
}

/**
 * An embedded engine with the migrated database, for one test file: opened before its tests, closed
 * and removed after them (`client` is set once the file's first hook ran).
 */
export function migratedEmbeddedDatabase(prefix: string): { client: ClickHouseClient } {
  const data = tempDataDir(prefix)
  const opened = {} as { client: ClickHouseClient }
  beforeAll(async () => {
    opened.client = embeddedClickHouse(data.dir)
    await opened.client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` })
    await runMigrations(opened.client, database)
  })
  afterAll(async () => {
    await opened.client?.close()
    data.remove()
  })
  return opened
}

export async function queryRows<T = Record<string, unknown>>(
  client: ClickHouseClient,
  query: string,
  params: Record<string, unknown> = {},
): Promise<T[]> {
  const result = await client.query({
    query,
    query_params: params,
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  return result.json<T>()
}

export async function countFinal(client: ClickHouseClient, table: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(client, `SELECT count() AS n FROM ${database}.${table} FINAL`)
  return Number(row?.n ?? 0)
}
