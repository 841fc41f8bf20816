import { createHash } from 'node:crypto'
import { latencyMetrics } from '../transform/conversation-rows.ts'
import {
  type ConversationRow,
  emptyTableRows,
  type TableName,
  type TableRows,
  tableNames,
} from '../transform/table-rows.ts'

// What a write must hold so that FINAL shows exactly the newest delivery of each conversation,
// given what ClickHouse holds already. Pure: the worker looks the stored rows up (stored-
// conversations.ts) and writes the plan. Per conversation (session_id):
// - of several deliveries in one write, only the newest (highest version, then offset) is written;
// - a delivery older than the stored one is not written at all (it would bring back rows the newer
//   one removed);
// - every stored row the newest delivery does not replace under its own key (fewer items, another
//   agent_id or key time, a tool call or handoff gone, another rollup minute) gets a tombstone: a
//   row with that key, the new version and is_deleted = 1, in that row's partition.
// Keys are compared as ClickHouse replaces rows: same partition and same sorting key.
export type StoredKey = Record<string, string | number> & { session_id: string }

/** Live rows (as FINAL shows them) of the write's conversations: their key columns, per table. */
export type StoredKeys = { [T in TableName]: StoredKey[] } & {
  conversations: Array<StoredKey & { version: number }>
}

/** The sorting key of each table (the feed: the rollup's key). */
export const replacingKeys: { [T in TableName]: readonly string[] } = {
  conversations: ['agent_id', 'event_time', 'session_id'],
  conversation_items: ['agent_id', 'event_time', 'session_id', 'item_index'],
  tool_calls: ['agent_id', 'event_time', 'session_id', 'call_index'],
  handoffs: ['agent_id', 'event_time', 'session_id', 'item_index'],
  test_results: ['event_time', 'test_run_id', 'test_id', 'session_id'],
  campaign_items: ['campaign_id', 'event_time', 'campaign_item_id', 'session_id'],
  agent_versions: ['agent_id', 'config_fingerprint'],
  agent_latency_feed: ['agent_id', 'minute', 'session_id'],
  conversation_latency_feed: ['agent_id', 'event_time', 'session_id'],
}

/**
 * Tables whose rows no conversation owns alone: every conversation of an agent version brings the
 * same version row, so one conversation's re-delivery never buries it (other conversations may still
 * run that version; what is counted of it comes from `conversations`). stored-keys.ts does not look
 * them up.
 */
const sharedTables: ReadonlySet<TableName> = new Set(['agent_versions'])

/** Which row ClickHouse replaces by this one: partition and sorting key (every key holds its time). */
export function replacedIdentity(table: TableName, row: object): string {
  const values = row as Record<string, unknown>
  return replacingKeys[table].map((column) => String(values[column])).join('\u0000')
}

export const emptyStoredKeys = (): StoredKeys =>
  Object.fromEntries(tableNames.map((table) => [table, []])) as unknown as StoredKeys

/** The newest delivery of each conversation in a write (highest version, then latest offset). */
export function newestDeliveries(rows: Pick<TableRows, 'conversations'>): Map<string, ConversationRow> {
  const newest = new Map<string, ConversationRow>()
  for (const row of rows.conversations) {
    const chosen = newest.get(row.session_id)
    if (
      !chosen ||
      row.version > chosen.version ||
      (row.version === chosen.version && row.kafka_offset >= chosen.kafka_offset)
    )
      newest.set(row.session_id, row)
  }
  return newest
}

function storedVersions(stored: StoredKeys['conversations']): Map<string, number> {
  const versions = new Map<string, number>()
  for (const row of stored)
    versions.set(row.session_id, Math.max(versions.get(row.session_id) ?? 0, row.version))
  return versions
}

/**
 * The conversations whose other stored rows must be looked up before planning: those the write
 * replaces by a newer delivery, or whose stored row sits under another key. A conversation stored
 * by this very delivery (a replay, a retried batch) needs nothing more.
 */
export function conversationsToInspect(
  rows: Pick<TableRows, 'conversations'>,
  stored: StoredKeys['conversations'],
): string[] {
  const newest = newestDeliveries(rows)
  const versions = storedVersions(stored)
  const inspect = new Set<string>()
  for (const row of stored) {
    const incoming = newest.get(row.session_id)
    if (!incoming || versions.get(row.session_id)! > incoming.version) continue
    if (
      row.version < incoming.version ||
      replacedIdentity('conversations', row) !== replacedIdentity('conversations', incoming)
    )
      inspect.add(row.session_id)
  }
  return [...inspect]
}

export interface WritePlan {
  rows: TableRows
  /** Conversations ClickHouse did not hold before this write (the domain counters count these). */
  firstSeen: Set<string>
  tombstones: number
  /** Conversations of the write left out because a newer delivery is written or stored. */
  supersededDeliveries: number
  /** Identifies what the plan changed ('' when nothing): part of the insert's deduplication token. */
  digest: string
}

const tombstoneArrays: Partial<Record<TableName, readonly string[]>> = {
  agent_latency_feed: latencyMetrics.flatMap((name) => [`${name}_unflagged`, `${name}_flagged`]),
  conversation_latency_feed: ['e2e_latency_unflagged', 'e2e_latency_flagged'],
}

function tombstone(table: TableName, key: StoredKey, version: number): Record<string, unknown> {
  const row: Record<string, unknown> = { version, is_deleted: 1 }
  for (const column of replacingKeys[table]) row[column] = key[column]
  // Every other column takes its default (null -> default on insert); the rollups' feeds need their
  // arrays, which their views read.
  for (const name of tombstoneArrays[table] ?? []) row[name] = []
  return row
}

/** True when the write is to be written as it is: one delivery per conversation, none replacing another. */
function writtenAsIs(
  rows: TableRows,
  stored: StoredKeys,
  newest: ReadonlyMap<string, ConversationRow>,
  versions: ReadonlyMap<string, number>,
): boolean {
  if (newest.size !== rows.conversations.length) return false
  if (
    tableNames.some(
      (table) => table !== 'conversations' && !sharedTables.has(table) && stored[table].length > 0,
    )
  )
    return false
  return stored.conversations.every((key) => {
    const incoming = newest.get(key.session_id)!
    return (
      versions.get(key.session_id)! <= incoming.version &&
      replacedIdentity('conversations', key) === replacedIdentity('conversations', incoming)
    )
  })
}

export function planWrite(rows: TableRows, stored: StoredKeys): WritePlan {
  const newest = newestDeliveries(rows)
  const versions = storedVersions(stored.conversations)
  // The common write (nothing delivered twice): no work per row.
  if (writtenAsIs(rows, stored, newest, versions))
    return {
      rows,
      firstSeen: new Set([...newest.keys()].filter((session) => !versions.has(session))),
      tombstones: 0,
      supersededDeliveries: 0,
      digest: '',
    }
  const written = new Map<string, number>() // session_id -> version written
  for (const [session, row] of newest) {
    const storedVersion = versions.get(session)
    if (storedVersion === undefined || storedVersion <= row.version) written.set(session, row.version)
  }
  const planned = emptyTableRows()
  const changes: string[] = []
  let tombstones = 0
  for (const table of tableNames) {
    // Rows of the written deliveries, one per key (the last one wins, as in ClickHouse).
    const live = new Map<string, Record<string, unknown>>()
    for (const row of rows[table] as unknown as Array<Record<string, unknown> & { session_id: string }>) {
      if (written.get(row.session_id) !== row.version) continue
      if (table === 'conversations' && row !== (newest.get(row.session_id) as unknown)) continue
      const identity = replacedIdentity(table, row)
      live.delete(identity)
      live.set(identity, row)
    }
    const out = planned[table] as unknown as Array<Record<string, unknown>>
    out.push(...live.values())
    const buried = new Set<string>()
    for (const key of sharedTables.has(table) ? [] : stored[table]) {
      const version = written.get(key.session_id)
      const identity = replacedIdentity(table, key)
      if (version === undefined || live.has(identity) || buried.has(identity)) continue
      buried.add(identity)
      out.push(tombstone(table, key, version))
      changes.push(`${table}\u0000${identity}\u0000${version}`)
      tombstones++
    }
  }
  let supersededDeliveries = 0
  for (const row of rows.conversations)
    if (written.get(row.session_id) !== row.version || newest.get(row.session_id) !== row) {
      supersededDeliveries++
      changes.push(`skip\u0000${row.session_id}\u0000${row.version}\u0000${row.kafka_offset}`)
    }
  const firstSeen = new Set([...written.keys()].filter((session) => !versions.has(session)))
  const digest =
    changes.length === 0
      ? ''
      : createHash('sha256').update(changes.sort().join('\n')).digest('hex').slice(0, 16)
  return { rows: planned, firstSeen, tombstones, supersededDeliveries, digest }
}
