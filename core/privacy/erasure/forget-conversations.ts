import { randomUUID } from 'node:crypto'
import type { ClickHouseClient } from '../../clickhouse/clickhouse.ts'
import { localSuffix } from '../../clickhouse/cluster-ddl-layout.ts'
import { recomputeLatencyHours, storedLatencyHours } from '../../clickhouse/latency-hour-rollup.ts'
import {
  type ErasureSelector,
  type SqlCondition,
  selectorCondition,
  selectorHash,
  sessionHash,
} from './erasure-selector.ts'
import { erasureVerdict, type RowCounts } from './erasure-verdict.ts'

// `forget`: removes every row of a caller's conversations from every table, records the request in
// voice_analytics.erasures (kind, keyed hash of the value, counts; never the value) and the
// conversations in forgotten_sessions (checked by the worker before each write, so a re-delivery or
// a replay stores nothing again), then searches every table again and records what it found.
// Order, for a run cut short: the conversations are marked forgotten before anything is removed, so
// from then on no write brings them back; a removal repeated removes nothing more.
const erasureTables = new Set(['erasures', 'forgotten_sessions', 'schema_migrations'])
/** Rounds of removal when a write of a forgotten conversation raced the first (it was in flight). */
const removalRounds = 3

/** Where the tables are: one server (or the embedded engine), or a cluster (CLICKHOUSE_CLUSTER). */
export interface ErasureTarget {
  database: string
  cluster?: string
}

/** A table `forget` reads and cleans: Distributed in cluster mode, its rows in `<table>_local` on each shard. */
interface StoredTable {
  columns: Set<string>
  distributed: boolean
}

/**
 * The removal of conversations from one table: a mutation, waited for, so the parts are rewritten
 * without the rows and their bytes are gone. A Distributed table holds nothing itself: its shards'
 * local tables are changed, on every node.
 */
export function deleteStatement(target: ErasureTarget, table: string, distributed: boolean): string {
  const where = 'DELETE WHERE session_id IN {ids:Array(String)}'
  return distributed && target.cluster
    ? `ALTER TABLE ${target.database}.${table}${localSuffix} ON CLUSTER ${target.cluster} ${where}`
    : `ALTER TABLE ${target.database}.${table} ${where}`
}

export interface ForgetRequest {
  selector: ErasureSelector
  /** PII_HMAC_KEY: phone numbers stored under a phone=hmac policy are found by their HMAC. */
  phoneHmacKey: string | undefined
  /** The key of the audit's selector hash. */
  auditKey: string
  /** What ran it, for the audit (e.g. "voice-analytics forget --phone"). */
  command: string
  dryRun?: boolean
  /** Called between finding the conversations and removing them (tests: a write racing the erasure). */
  beforeRemoval?: () => Promise<void>
}

export interface ForgetReport {
  erasureId: string | undefined
  requestedAt: Date
  sessionIds: string[]
  /** Rows of the caller's conversations per table, before removal. */
  found: RowCounts
  removed: RowCounts
  /** What the search after removal still found, per table; empty when nothing is left. */
  remaining: RowCounts
  verification: string
}

const query = async <T>(client: ClickHouseClient, text: string, params: Record<string, unknown> = {}) =>
  (
    await client.query({
      query: text,
      query_params: params,
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    })
  ).json<T>()

/**
 * The database's tables that hold rows, with their columns: MergeTree tables, and in cluster mode the
 * Distributed tables in front of the shards' `_local` tables (read through them, never directly).
 * Views and Null feed tables hold nothing.
 */
async function storedTables(
  client: ClickHouseClient,
  target: ErasureTarget,
): Promise<Map<string, StoredTable>> {
  const rows = await query<{ table: string; engine: string; columns: string[] }>(
    client,
    `SELECT c.table AS table, any(t.engine) AS engine, groupArray(c.name) AS columns
      FROM system.columns AS c INNER JOIN system.tables AS t ON t.database = c.database AND t.name = c.table
      WHERE c.database = {database:String} AND (t.engine LIKE '%MergeTree' OR t.engine = 'Distributed')
      GROUP BY c.table`,
    { database: target.database },
  )
  return new Map(
    rows
      .filter((row) => !erasureTables.has(row.table) && !(target.cluster && row.table.endsWith(localSuffix)))
      .map((row) => [
        row.table,
        { columns: new Set(row.columns), distributed: row.engine === 'Distributed' },
      ]),
  )
}

/** The columns a selector reads; tables without them cannot name the caller. */
function selectorColumns(selector: ErasureSelector): string[] {
  switch (selector.kind) {
    case 'phone':
      return ['from_number', 'to_number']
    case 'call_sid':
      return ['call_sid']
    case 'agent_range':
      return ['agent_id', 'event_time']
    case 'session_id':
      return ['session_id']
  }
}

async function findSessions(
  client: ClickHouseClient,
  database: string,
  tables: Map<string, StoredTable>,
  selector: ErasureSelector,
  condition: SqlCondition,
): Promise<string[]> {
  // Every delivery, tombstones included (no FINAL): a conversation is the caller's if any of its rows
  // is. An agent's range is the conversations' (every other table copies their agent and time).
  const searched =
    selector.kind === 'agent_range'
      ? ['conversations']
      : [...tables]
          .filter(([, { columns }]) => selectorColumns(selector).every((column) => columns.has(column)))
          .map(([table]) => table)
  const ids = new Set<string>()
  for (const table of searched)
    for (const row of await query<{ session_id: string }>(
      client,
      `SELECT DISTINCT session_id FROM ${database}.${table} WHERE ${condition.where}`,
      condition.params,
    ))
      ids.add(row.session_id)
  return [...ids].sort()
}

async function countRows(
  client: ClickHouseClient,
  database: string,
  tables: Map<string, StoredTable>,
  sessionIds: string[],
): Promise<RowCounts> {
  const counts: RowCounts = {}
  for (const [table, { columns }] of tables) {
    if (!columns.has('session_id')) continue
    const [row] = await query<{ rows: number }>(
      client,
      `SELECT count() AS rows FROM ${database}.${table} WHERE session_id IN {ids:Array(String)}`,
      { ids: sessionIds },
    )
    counts[table] = Number(row?.rows ?? 0)
  }
  return counts
}

async function removeRows(
  client: ClickHouseClient,
  target: ErasureTarget,
  tables: Map<string, StoredTable>,
  names: Iterable<string>,
  sessionIds: string[],
): Promise<void> {
  for (const table of names)
    await client.command({
      query: deleteStatement(target, table, tables.get(table)?.distributed === true),
      query_params: { ids: sessionIds },
      clickhouse_settings: { mutations_sync: '2' },
    })
}

async function recordAudit(
  client: ClickHouseClient,
  database: string,
  row: Record<string, unknown>,
): Promise<void> {
  await client.insert({ table: `${database}.erasures`, values: [row], format: 'JSONEachRow' })
}

const millis = (time: Date) => time.getTime()

export async function forgetConversations(
  client: ClickHouseClient,
  target: ErasureTarget,
  request: ForgetRequest,
): Promise<ForgetReport> {
  const { selector } = request
  const { database } = target
  const requestedAt = new Date()
  const condition = selectorCondition(selector, request.phoneHmacKey)
  const tables = await storedTables(client, target)
  const sessionIds = await findSessions(client, database, tables, selector, condition)
  const found = sessionIds.length > 0 ? await countRows(client, database, tables, sessionIds) : {}
  if (request.dryRun)
    return {
      erasureId: undefined,
      requestedAt,
      sessionIds,
      found,
      removed: {},
      remaining: {},
      verification: 'dry run',
    }

  const erasureId = randomUUID()
  const audit = {
    erasure_id: erasureId,
    requested_at: millis(requestedAt),
    selector_kind: selector.kind,
    selector_hash: selectorHash(selector, request.auditKey),
    time_from: selector.kind === 'agent_range' ? millis(selector.from) : null,
    time_to: selector.kind === 'agent_range' ? millis(selector.to) : null,
    command: request.command,
    conversations: sessionIds.length,
    rows_removed: {},
    verified_at: null,
    remaining: {},
    verification: 'removal started',
    version: 1,
  }
  await recordAudit(client, database, audit)
  if (sessionIds.length > 0)
    await client.insert({
      table: `${database}.forgotten_sessions`,
      values: sessionIds.map((id) => ({
        session_hash: sessionHash(id),
        erasure_id: erasureId,
        forgotten_at: millis(requestedAt),
      })),
      format: 'JSONEachRow',
    })
  // The hour rollup holds no conversation, only sums over them: its hours are recomputed once the
  // rows are gone (latency-hour-rollup.ts).
  const rollupHours = await storedLatencyHours(client, database, sessionIds)
  await request.beforeRemoval?.()

  let remainingOfSessions: RowCounts = found
  for (let round = 0; round < removalRounds && sessionIds.length > 0; round++) {
    const withRows = Object.entries(remainingOfSessions)
      .filter(([, rows]) => rows > 0)
      .map(([table]) => table)
    if (withRows.length === 0) break
    await removeRows(client, target, tables, withRows, sessionIds)
    remainingOfSessions = await countRows(client, database, tables, sessionIds)
  }
  await recomputeLatencyHours(client, database, rollupHours)
  // The search again, by the selector itself: a call stored after the request is the caller's too.
  const laterSessions = (await findSessions(client, database, tables, selector, condition)).filter(
    (id) => !sessionIds.includes(id),
  )
  const later = laterSessions.length > 0 ? await countRows(client, database, tables, laterSessions) : {}
  const verdict = erasureVerdict({ found, remainingOfSessions, laterSessions: laterSessions.length, later })
  const verifiedAt = new Date()
  await recordAudit(client, database, {
    ...audit,
    rows_removed: verdict.removed,
    verified_at: millis(verifiedAt),
    remaining: verdict.remaining,
    verification: verdict.text,
    version: 2,
  })
  return {
    erasureId,
    requestedAt,
    sessionIds,
    found,
    removed: verdict.removed,
    remaining: verdict.remaining,
    verification: verdict.text,
  }
}

export interface ErasureAuditRow {
  erasure_id: string
  requested_at: string
  selector_kind: string
  selector_hash: string
  command: string
  conversations: number
  rows_removed: Record<string, number>
  verified_at: string | null
  remaining: Record<string, number>
  verification: string
}

/** `forget --status`: every request, newest first, as last recorded. */
export async function erasureStatus(client: ClickHouseClient, database: string): Promise<ErasureAuditRow[]> {
  return query<ErasureAuditRow>(
    client,
    `SELECT erasure_id, requested_at, selector_kind, selector_hash, command, conversations, rows_removed,
        verified_at, remaining, verification
      FROM ${database}.erasures FINAL ORDER BY requested_at DESC`,
  )
}
