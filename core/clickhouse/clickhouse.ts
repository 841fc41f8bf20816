import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Readable } from 'node:stream'
import { type ClickHouseClient, createClient, drainStream } from '@clickhouse/client'
import { Session } from 'chdb'
import { type ChdbExtension, createChdbConnection } from 'chdb/connection'
import { removeOrphanInsertFiles, withInsertFile } from './chdb-insert-files.ts'

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

/**
 * MergeTree defaults of the embedded engine, in the server's configuration file (a MergeTree
 * setting has no command-line form). Merges were the engine's share of the worker's ~1 GB peak RSS
 * (#12): every merge now uses the vertical algorithm, which merges the key columns and then the
 * rest one column at a time instead of reading every column of every part at once (the horizontal
 * algorithm, chosen below 131,072 rows: most of the worker's merges). A merge then holds ~20-60 MB
 * instead of 120-250 MB, at no more CPU per conversation (bench/experiments/worker-memory.ts at 1cd1657971).
 * Merges were also a quarter of the worker's CPU (each write makes a part in every table): a
 * merge selector base of 10 instead of 5 merges parts in bigger steps, so each row is rewritten
 * fewer times: half the merges and 60% fewer merged rows, at ~1.5x the active parts
 * (bench/results/worker.md, "Engine settings").
 */
export const embeddedMergeTreeSettings = {
  vertical_merge_algorithm_min_rows_to_activate: 1,
  vertical_merge_algorithm_min_bytes_to_activate: 0,
  vertical_merge_algorithm_min_columns_to_activate: 1,
  merge_selector_base: 10,
} as const

type EngineSettings = Readonly<Record<string, string | number>>
const xmlSettings = (settings: EngineSettings) =>
  Object.entries(settings)
    .map(([name, value]) => `<${checkedIdentifier(name)}>${value}</${name}>`)
    .join('')

/** The embedded engine's configuration file: server settings, then MergeTree defaults. */
export function embeddedConfigXml(
  mergeTree: EngineSettings = embeddedMergeTreeSettings,
  server: EngineSettings = {},
): string {
  return `<clickhouse>${xmlSettings(server)}<merge_tree>${xmlSettings(mergeTree)}</merge_tree></clickhouse>\n`
}

/** The configuration file beside the data it configures, (re)written when it differs. */
function writeEmbeddedConfig(dataDir: string): string {
  const file = join(dataDir, 'embedded-engine-config.xml')
  const text = embeddedConfigXml()
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text)
  return file
}

/** The chDB session behind an embedded client: binary inserts go to it directly. */
const embeddedSessions = new WeakMap<ClickHouseClient, ChdbExtension>()

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
  removeOrphanInsertFiles()
  // chdb implements @clickhouse/client-common's Connection; @clickhouse/client 1.23.1 bundles an
  // identical copy of those types, which TypeScript sees as distinct: same shape at run time.
  // createChdbConnection takes no engine arguments. chDB runs one engine per process, started by
  // the first connection on the directory (later ones join it, their arguments ignored): a session
  // opened first with the arguments starts it, and the engine outlives that session.
  const starter = new Session(path, { connectionArgs: [`--config-file=${writeEmbeddedConfig(path)}`] })
  let chdb: ReturnType<typeof createChdbConnection>
  try {
    chdb = createChdbConnection({ path })
  } finally {
    starter.close()
  }
  const client = createClient({
    connection: chdb as unknown as ClientConnection,
    clickhouse_settings: sharedSettings,
  })
  embeddedSessions.set(client, chdb.chdb)
  return client
}

export interface NativeInsert {
  /** Database-qualified table name. */
  table: string
  columns: readonly string[]
  /** One block of ClickHouse's Native format holding exactly `columns` (clickhouse-native-format.ts). */
  block: Buffer
  settings: Record<string, string | number>
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/
const checkedIdentifier = (name: string) => {
  if (!identifier.test(name)) throw new Error(`not a plain ClickHouse identifier: ${JSON.stringify(name)}`)
  return name
}
/** A string as a ClickHouse SQL literal. */
export const sqlString = (value: string) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
const settingsClause = (settings: Record<string, string | number>) =>
  Object.entries(settings)
    .map(
      ([name, value]) =>
        `${checkedIdentifier(name)} = ${typeof value === 'number' ? value : sqlString(value)}`,
    )
    .join(', ')

/**
 * INSERT ... FORMAT Native, the cheapest input for the engine: one call for both connections. The
 * settings hold for this insert only (a query-level SETTINGS clause, or the server's URL parameters).
 */
export async function insertNativeBlock(client: ClickHouseClient, insert: NativeInsert): Promise<void> {
  const target = `${checkedIdentifier(insert.table)} (${insert.columns.map(checkedIdentifier).join(', ')})`
  const session = embeddedSessions.get(client)
  if (session) {
    const settings =
      Object.keys(insert.settings).length > 0 ? ` SETTINGS ${settingsClause(insert.settings)}` : ''
    // chDB reads binary formats only from a file (chdb-insert-files.ts).
    await withInsertFile(insert.block, (file) =>
      session.queryAsync(`INSERT INTO ${target} FROM INFILE ${sqlString(file)}${settings} FORMAT Native`),
    )
    return
  }
  const result = await client.exec({
    query: `INSERT INTO ${target} FORMAT Native`,
    values: Readable.from([insert.block]),
    clickhouse_settings: insert.settings,
  })
  await drainStream(result.stream)
}

/** 'embedded chDB at <dir>' or the server URL without credentials, for logs and status lines. */
export function describeClickHouse(settings: ClickHouseSettings): string {
  if (!settings.CLICKHOUSE_URL) return `embedded chDB at ${resolve(settings.CLICKHOUSE_DATA_DIR)}`
  const url = new URL(settings.CLICKHOUSE_URL)
  url.username = ''
  url.password = ''
  return `ClickHouse server at ${url.origin}${url.pathname}`
}
