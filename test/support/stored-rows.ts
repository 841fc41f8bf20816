import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { conversationTables } from '../../core/clickhouse/clickhouse-retention.ts'
import { latencyMetrics as hourRollupMetrics } from '../../core/clickhouse/latency-metrics.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import {
  emptyTableRows,
  type TableName,
  type TableRows,
  tableColumns,
  tableNames,
} from '../../services/worker/transform/table-rows.ts'
import { countFinal, database, embeddedClickHouse, queryRows } from './embedded-clickhouse.ts'
import type { Sent } from './produce-events.ts'
import { waitFor } from './wait-for.ts'

// What the worker stored against what it was sent: rows per table equal to the transform's, each
// conversation once, the hour rollup agreeing with the minute rollup.

/** The rows the transform makes of what was sent (delivery-dependent columns left out). */
export function expectedRows(sent: readonly Sent[]): TableRows {
  const all = emptyTableRows()
  for (const { record } of sent) {
    const rows = conversationRows(record, { topic: '', partition: 0, offset: 0, timestampMs: 0 })
    for (const table of tableNames) (all[table] as unknown[]).push(...(rows[table] as unknown[]))
  }
  return all
}

/**
 * A table read back in the form the row builders produce: DateTime64 as epoch ms, DateTime as
 * epoch seconds, 64-bit integers as numbers.
 */
export async function readTable(
  client: ClickHouseClient,
  table: TableName | 'agent_latency_minute' | 'conversation_latency',
  columns: readonly string[],
  orderBy: string,
): Promise<Record<string, unknown>[]> {
  const types = await queryRows<{ name: string; type: string }>(
    client,
    `SELECT name, type FROM system.columns WHERE database = '${database}' AND table = '${table}'`,
  )
  const typeOf = new Map(types.map((row) => [row.name, row.type]))
  const select = columns.map((column) => {
    const type = typeOf.get(column) ?? ''
    if (type.includes('DateTime64')) return `toUnixTimestamp64Milli(${column}) AS ${column}`
    if (type.includes('DateTime')) return `toUnixTimestamp(${column}) AS ${column}`
    return column
  })
  return queryRows(client, `SELECT ${select.join(', ')} FROM ${database}.${table} FINAL ORDER BY ${orderBy}`)
}

/** Rows per table (FINAL) equal to what the transform makes of `sent`: nothing lost, nothing doubled. */
export async function expectExactCounts(
  client: ClickHouseClient,
  sent: readonly Sent[],
  expect: (actual: number, table: string) => { toBe: (expected: number) => void },
): Promise<void> {
  const expected = expectedRows(sent)
  for (const table of conversationTables)
    expect(await countFinal(client, table), table).toBe(expected[table].length)
  const rollupFeeds = {
    agent_latency_minute: 'agent_latency_feed',
    conversation_latency: 'conversation_latency_feed',
  } as const
  for (const table of ['agent_latency_minute', 'conversation_latency'] as const)
    expect(await countFinal(client, table), table).toBe(expected[rollupFeeds[table]].length)
  // The hour rollup takes in the ended hours within the worker's keeper interval (10 s), off the write.
  const mismatches = () => hourRollupMismatches(client, { endedHours: true })
  expect(
    await waitFor(
      mismatches,
      (count) => count === 0,
      60_000,
      'the hour rollup to take in what was written',
    ).catch(mismatches),
    'agent_latency_hour groups unlike agent_latency_minute merged',
  ).toBe(0)
  const [rollup] = await queryRows<{ samples: number }>(
    client,
    `SELECT sum(e2e_latency_count) AS samples FROM ${database}.agent_latency_minute FINAL`,
  )
  expect(rollup?.samples ?? 0, 'rollup e2e samples').toBe(
    expected.agent_latency_feed.reduce(
      (sum, row) => sum + row.e2e_latency_unflagged.length + row.e2e_latency_flagged.length,
      0,
    ),
  )
}

/**
 * The hour rollup against agent_latency_minute FINAL merged per agent, hour, source and name: the
 * groups that differ in any metric's counts, sums (to 1e-9 s) or histograms, or exist on one side only.
 * `endedHours`: only the hours that ended (the worker's keeper holds a running hour until it ended;
 * panels read it from the minute rollup meanwhile).
 */
export async function hourRollupMismatches(
  client: ClickHouseClient,
  { endedHours = false }: { endedHours?: boolean } = {},
): Promise<number> {
  const ended = endedHours ? 'WHERE hour + INTERVAL 1 HOUR <= now()' : ''
  const metrics = hourRollupMetrics.flatMap((metric) =>
    ['unflagged', 'flagged'].map((part) => `${metric}_${part}`),
  )
  const stored = metrics.flatMap((prefix) => [
    `${prefix}_count AS ${prefix}_c`,
    `round(${prefix}_sum, 9) AS ${prefix}_s`,
    `${prefix}_buckets AS ${prefix}_b`,
    `${prefix}_bucket_counts AS ${prefix}_k`,
  ])
  const merged = metrics.flatMap((prefix) => [
    `toUInt32(sum(${prefix}_count)) AS ${prefix}_c`,
    `round(sum(${prefix}_sum), 9) AS ${prefix}_s`,
    `(sumMap(${prefix}_buckets, ${prefix}_bucket_counts) AS ${prefix}_h).1 AS ${prefix}_b`,
    `arrayMap(v -> toUInt32(v), ${prefix}_h.2) AS ${prefix}_k`,
  ])
  const fromHours = `SELECT agent_id, hour, source, ifNull(agent_name, '') AS name, ${stored.join(', ')}
      FROM ${database}.agent_latency_hour FINAL ${ended}`
  const fromMinutes = `SELECT agent_id, toStartOfHour(minute) AS hour, source, ifNull(agent_name, '') AS name,
        ${merged.join(', ')}
      FROM ${database}.agent_latency_minute FINAL ${ended} GROUP BY agent_id, hour, source, name`
  const [row] = await queryRows<{ mismatches: number }>(
    client,
    `SELECT (SELECT count() FROM (${fromHours} EXCEPT ${fromMinutes}))
        + (SELECT count() FROM (${fromMinutes} EXCEPT ${fromHours})) AS mismatches`,
  )
  return Number(row?.mismatches ?? 0)
}

/** Rows and distinct sessions in `conversations` (FINAL): equal when no conversation is stored twice. */
export async function storedConversations(
  client: ClickHouseClient,
): Promise<{ rows: number; sessions: number }> {
  const [row] = await queryRows<{ rows: number; sessions: number }>(
    client,
    `SELECT count() AS rows, uniqExact(session_id) AS sessions FROM ${database}.conversations FINAL`,
  )
  return { rows: Number(row?.rows ?? 0), sessions: Number(row?.sessions ?? 0) }
}

/**
 * After the workers stopped: every table (FINAL) holds exactly what the transform makes of `sent`,
 * and no conversation is stored twice (under two keys). Opens the data directory for the check.
 */
export async function expectStoredExactlyOnce(
  dataDir: string,
  sent: readonly Sent[],
  expect: (
    actual: unknown,
    what?: string,
  ) => { toBe: (expected: number) => void; toEqual: (expected: unknown) => void },
): Promise<void> {
  const sessions = new Set(sent.map(({ event }) => event.data.session_id)).size
  const clickhouse = embeddedClickHouse(dataDir)
  try {
    await expectExactCounts(clickhouse, sent, expect)
    expect(await storedConversations(clickhouse), 'conversations stored').toEqual({
      rows: sessions,
      sessions,
    })
  } finally {
    await clickhouse.close()
  }
}

const rowOrder: Record<Exclude<TableName, 'agent_latency_feed' | 'conversation_latency_feed'>, string> = {
  conversations: 'session_id',
  conversation_items: 'session_id, item_index',
  tool_calls: 'session_id, call_index',
  handoffs: 'session_id, item_index',
  test_results: 'session_id',
  campaign_items: 'session_id',
  agent_versions: 'agent_id, config_fingerprint',
}
const deliveryColumns = new Set(['kafka_topic', 'kafka_partition', 'kafka_offset'])
const rollupMetrics = [
  'e2e_latency',
  'llm_node_ttft',
  'tts_node_ttfb',
  'transcription_delay',
  'end_of_turn_delay',
]

/**
 * Every table (FINAL) holds exactly the rows the transform makes of `sent`, values equal (the
 * delivery's offset aside), and the rollup exactly their per-minute counts and sums.
 */
export async function expectStoredRowsEqual(
  client: ClickHouseClient,
  sent: readonly Sent[],
  expect: (actual: unknown, message: string) => { toEqual: (expected: unknown) => void },
): Promise<void> {
  const expected = expectedRows(sent)
  for (const table of Object.keys(rowOrder) as Array<keyof typeof rowOrder>) {
    const columns = tableColumns[table].filter((column) => !deliveryColumns.has(column))
    const keys = rowOrder[table].split(', ')
    const sortKey = (row: Record<string, unknown>) =>
      keys.map((key) => String(row[key]).padStart(12, '0')).join('|')
    const projected = (expected[table] as unknown as Record<string, unknown>[]).map((row) =>
      Object.fromEntries(columns.map((column) => [column, row[column]])),
    )
    // Every conversation of a version brings the same version row; the table keeps it once.
    const want = (
      table === 'agent_versions'
        ? [...new Map(projected.map((row) => [JSON.stringify(row), row])).values()]
        : projected
    ).sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1))
    const got = await readTable(client, table, columns, rowOrder[table])
    expect(
      got.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1)),
      table,
    ).toEqual(want)
  }
  const rollupColumns = [
    'agent_id',
    'minute',
    'session_id',
    'version',
    ...rollupMetrics.map((name) => `${name}_count`),
  ]
  const rollup = await readTable(
    client,
    'agent_latency_minute',
    rollupColumns,
    'agent_id, minute, session_id',
  )
  const wantRollup = expected.agent_latency_feed
    .map((row) => ({
      agent_id: row.agent_id,
      minute: row.minute,
      session_id: row.session_id,
      version: row.version,
      ...Object.fromEntries(
        rollupMetrics.map((name) => [
          `${name}_count`,
          row[`${name as 'e2e_latency'}_unflagged`].length + row[`${name as 'e2e_latency'}_flagged`].length,
        ]),
      ),
    }))
    .sort((a, b) =>
      a.agent_id !== b.agent_id
        ? a.agent_id < b.agent_id
          ? -1
          : 1
        : a.minute !== b.minute
          ? a.minute - b.minute
          : a.session_id < b.session_id
            ? -1
            : 1,
    )
  expect(rollup, 'agent_latency_minute').toEqual(wantRollup)
  // The per-conversation rollup: one row per conversation, its breakdown keys, and its turns'
  // e2e latencies as counts, maxima and histograms whose counts add up (migration 0008).
  const conversationRollup = await readTable(
    client,
    'conversation_latency',
    [
      ...conversationLatencyKeys,
      'e2e_latency_unflagged_count',
      'e2e_latency_unflagged_max',
      'e2e_latency_flagged_count',
      'e2e_latency_flagged_max',
      'arraySum(e2e_latency_unflagged_bucket_counts) AS unflagged_in_buckets',
      'arraySum(e2e_latency_flagged_bucket_counts) AS flagged_in_buckets',
    ],
    'session_id',
  )
  const largest = (values: number[]) => (values.length === 0 ? 0 : Math.max(...values))
  const wantConversations = [...expected.conversation_latency_feed]
    .sort((a, b) => (a.session_id < b.session_id ? -1 : 1))
    .map((row) => ({
      ...Object.fromEntries(conversationLatencyKeys.map((column) => [column, row[column]])),
      is_test: row.is_test === 1,
      failed: row.failed === 1,
      e2e_latency_unflagged_count: row.e2e_latency_unflagged.length,
      e2e_latency_unflagged_max: largest(row.e2e_latency_unflagged),
      e2e_latency_flagged_count: row.e2e_latency_flagged.length,
      e2e_latency_flagged_max: largest(row.e2e_latency_flagged),
      unflagged_in_buckets: row.e2e_latency_unflagged.length,
      flagged_in_buckets: row.e2e_latency_flagged.length,
    }))
  expect(conversationRollup, 'conversation_latency').toEqual(wantConversations)
}

const conversationLatencyKeys = [
  'session_id',
  'agent_id',
  'event_time',
  'version',
  'campaign_id',
  'telecom_provider',
  'test_run_id',
  'is_test',
  'status',
  'room_failed',
  'failed',
] as const
