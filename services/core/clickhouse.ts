import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { type ClickHouseClient, createClient } from '@clickhouse/client'
import { createChdbConnection } from 'chdb/connection'

// One code path, two connections: a ClickHouse server over HTTP when CLICKHOUSE_URL is set,
// else the embedded chDB engine on a local data directory (one owner process at a time).
export type { ClickHouseClient }

type ClientConnection = NonNullable<Parameters<typeof createClient>[0]>['connection']

export interface ClickHouseSettings {
  CLICKHOUSE_URL?: string | undefined
  CLICKHOUSE_USER: string
  CLICKHOUSE_PASSWORD: string
  CLICKHOUSE_DATA_DIR: string
}

// The same answers from both connections: chDB and the server differ in these defaults.
const sharedSettings = {
  output_format_json_quote_64bit_integers: 1,
  date_time_input_format: 'best_effort',
} as const

export function createClickHouse(settings: ClickHouseSettings): ClickHouseClient {
  if (settings.CLICKHOUSE_URL) {
    return createClient({
      clickhouse_settings: sharedSettings,
      url: settings.CLICKHOUSE_URL,
      username: settings.CLICKHOUSE_USER,
      password: settings.CLICKHOUSE_PASSWORD,
      request_timeout: 60_000,
      compression: { request: true, response: true },
    })
  }
  const path = resolve(settings.CLICKHOUSE_DATA_DIR)
  mkdirSync(path, { recursive: true })
  // chdb implements @clickhouse/client-common's Connection; @clickhouse/client 1.23.1 bundles an
  // identical copy of those types, which TypeScript sees as distinct: same shape at run time.
  const connection = createChdbConnection({ path }) as unknown as ClientConnection
  return createClient({ connection, clickhouse_settings: sharedSettings })
}

/** 'embedded chDB at <dir>' or the server URL without credentials, for logs and status lines. */
export function describeClickHouse(settings: ClickHouseSettings): string {
  if (!settings.CLICKHOUSE_URL) return `embedded chDB at ${resolve(settings.CLICKHOUSE_DATA_DIR)}`
  const url = new URL(settings.CLICKHOUSE_URL)
  url.username = ''
  url.password = ''
  return `ClickHouse server at ${url.origin}${url.pathname}`
}
