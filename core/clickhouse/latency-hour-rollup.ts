import { randomUUID } from 'node:crypto'
import type { ClickHouseClient } from './clickhouse.ts'
import { latencyMetrics } from './latency-metrics.ts'

// The hour rollup (migration 0013): agent_latency_minute merged over every conversation of an agent,
// source and agent name in an hour, so that a dashboard over days reads one row per agent-hour
// instead of one per conversation and minute (a month of a million calls: ~9k rows, not ~4.5M).
// It is exact because it is never added to: the worker's hour-rollup keeper recomputes, every few
// seconds and off the write path, each agent-hour whose minute rows were stored after the hour was
// last recomputed (migration 0017's inserted_at against the hour's version: dirtyHoursStatement),
// from agent_latency_minute FINAL (the per-conversation rollup that re-deliveries and tombstones keep
// exact), replacing the stored rows (ReplacingMergeTree) — a tombstone for every stored group of the
// hour, then the groups found now, one version higher. A recompute repeated writes the same rows
// again; a later one wins (versions are the server's clock, taken when the statement starts, so a
// later one has read every part an earlier one read). `forget` recomputes the hours of the
// conversations it removed (a removal stores no row to find).
const parts = ['unflagged', 'flagged'] as const
const columnsOf = (metric: string, part: string) =>
  ['count', 'sum', 'buckets', 'bucket_counts'].map((suffix) => `${metric}_${part}_${suffix}`)

/** The stored columns of both rollups' metrics, in the hour rollup's insert order. */
export const hourRollupMetricColumns = latencyMetrics.flatMap((metric) =>
  parts.flatMap((part) => columnsOf(metric, part)),
)

/** One agent-hour: the agent_id and the hour's start (epoch seconds). */
export interface AgentHour {
  agent_id: string
  hour: number
}

/** The agent-hours of rollup rows (their minute in epoch seconds), each once, in order. */
export function agentHours(rows: Iterable<{ agent_id: string; minute: number }>): AgentHour[] {
  const seen = new Map<string, AgentHour>()
  for (const row of rows) {
    const hour = Math.floor(row.minute / 3600) * 3600
    seen.set(`${row.agent_id}\u0000${hour}`, { agent_id: row.agent_id, hour })
  }
  return [...seen.values()].sort((a, b) => a.agent_id.localeCompare(b.agent_id) || a.hour - b.hour)
}

// The agent-hours to recompute, as two parameter arrays zipped: the condition on a table's agent
// and hour, narrowed first by the agents and the hours' span (the sorting key's prefix).
const touched = (hourOf: string) =>
  `agent_id IN {agents:Array(String)}
    AND ${hourOf} >= toDateTime({first:UInt32}, 'UTC') AND ${hourOf} <= toDateTime({last:UInt32}, 'UTC')
    AND (agent_id, toUnixTimestamp(${hourOf})) IN (
      SELECT tupleElement(pair, 1), tupleElement(pair, 2)
      FROM (SELECT arrayJoin(arrayZip({agentOfHour:Array(String)}, {hours:Array(UInt32)})) AS pair))`

/**
 * The recompute's rows: tombstones (version V) for the stored groups of the agent-hours `where`
 * selects, and their groups as agent_latency_minute FINAL has them now (version V + 1), V being the
 * server's clock. `where` is a condition on agent_id and the hour expression it is given. Named as
 * agent_latency_hour's columns, so a view can append it too (bench/clickhouse-side).
 */
export function recomputeSelect(database: string, where: (hourOf: string) => string): string {
  const version = 'toUInt64(toUnixTimestamp64Nano(now64(9)))'
  // Typed and named: equal constants of one SELECT must not share a name.
  const emptyValues = ['toUInt32(0)', 'toFloat64(0)', 'CAST([] AS Array(Int16))', 'CAST([] AS Array(UInt32))']
  const emptied = latencyMetrics.flatMap((metric) =>
    parts.flatMap((part) =>
      columnsOf(metric, part).map((column, index) => `${emptyValues[index]} AS ${column}`),
    ),
  )
  const merged = latencyMetrics.flatMap((metric) =>
    parts.flatMap((part) => {
      const [count, sum, buckets, counts] = columnsOf(metric, part)
      const histogram = `sumMap(${buckets}, ${counts})`
      return [
        `toUInt32(sum(${count}))`,
        `sum(${sum})`,
        `(${histogram}).1`,
        `arrayMap(value -> toUInt32(value), (${histogram}).2)`,
      ]
    }),
  )
  return `SELECT agent_id, hour, source, agent_name, ${version} AS version, 1 AS is_deleted, ${emptied.join(', ')}
FROM ${database}.agent_latency_hour FINAL
WHERE ${where('hour')}
UNION ALL
SELECT agent_id, toStartOfHour(minute) AS minute_hour, source, agent_name, ${version} + 1, 0,
  ${merged.join(',\n  ')}
FROM ${database}.agent_latency_minute FINAL
WHERE ${where('toStartOfHour(minute)')}
GROUP BY agent_id, minute_hour, source, agent_name`
}

/** The recompute as an INSERT: of the agent-hours given as parameters (recomputeParams), or of every hour. */
export function recomputeStatement(database: string, scope: 'touched' | 'every hour' = 'touched'): string {
  const where = (hourOf: string) => (scope === 'touched' ? touched(hourOf) : '1')
  return `INSERT INTO ${database}.agent_latency_hour
  (agent_id, hour, source, agent_name, version, is_deleted, ${hourRollupMetricColumns.join(', ')})
${recomputeSelect(database, where)}`
}

/** The query parameters of the recompute for these agent-hours. */
export function recomputeParams(hours: readonly AgentHour[]): Record<string, unknown> {
  const starts = hours.map((entry) => entry.hour)
  return {
    agents: [...new Set(hours.map((entry) => entry.agent_id))],
    first: Math.min(...starts),
    last: Math.max(...starts),
    agentOfHour: hours.map((entry) => entry.agent_id),
    hours: starts,
  }
}

// Agent-hours per statement: a backfill's pass recomputes thousands, and each statement pays again
// for opening every part its hours touch (1,561 hours of a ten-year history: 0.43–0.48 s in one
// statement, 0.72–0.87 s in chunks of 500; bench/experiments/hour-recompute-ab.ts at 1cd1657971). Bounded because
// the hours travel as query parameters, in the URL of a server's HTTP request (http_max_uri_size,
// 1 MiB by default): 2,000 of them are ~110 KB with UUID agent ids.
const recomputeChunk = 2000
/**
 * A token of its own per recompute: an inherited one (chDB keeps settings for the session) would drop
 * it. Hours of more months than max_partitions_per_insert_block (a backfill) are written in one insert.
 */
const recomputeSettings = () => ({
  insert_deduplication_token: `latency-hour-recompute-${randomUUID()}`,
  throw_on_max_partitions_per_insert_block: 0,
})

/** Recomputes these agent-hours of the hour rollup from agent_latency_minute. */
export async function recomputeLatencyHours(
  client: ClickHouseClient,
  database: string,
  hours: readonly AgentHour[],
): Promise<void> {
  for (let start = 0; start < hours.length; start += recomputeChunk)
    await client.command({
      query: recomputeStatement(database),
      query_params: recomputeParams(hours.slice(start, start + recomputeChunk)),
      clickhouse_settings: recomputeSettings(),
    })
}

/** Recomputes every hour (data that reached agent_latency_minute another way, e.g. the queries benchmark's copies). */
export async function recomputeEveryLatencyHour(client: ClickHouseClient, database: string): Promise<void> {
  await client.command({
    query: recomputeStatement(database, 'every hour'),
    clickhouse_settings: recomputeSettings(),
  })
}

/**
 * The agent-hours of every row agent_latency_minute holds of these conversations, tombstones and
 * superseded deliveries included: the hours a write that landed before a crash may have changed.
 */
export async function storedLatencyHours(
  client: ClickHouseClient,
  database: string,
  sessionIds: readonly string[],
): Promise<AgentHour[]> {
  if (sessionIds.length === 0) return []
  const result = await client.query({
    query: `SELECT DISTINCT agent_id, toUnixTimestamp(toStartOfHour(minute)) AS minute
      FROM ${database}.agent_latency_minute WHERE session_id IN {ids:Array(String)}`,
    query_params: { ids: [...sessionIds] },
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  return agentHours(await result.json<{ agent_id: string; minute: number }>())
}

/**
 * How long after its insert time a minute row may still be invisible to a recompute (its block is
 * stamped when formed, its part seen when the insert ends): an hour recomputed less than this after
 * one of its rows was stamped is recomputed again.
 */
export const insertVisibilityMarginSeconds = 60

/**
 * The agent-hours to recompute: those with minute rows stamped after (the hour's last recompute less
 * the margin), or never recomputed. Only rows stamped since {sinceMs} are read (the minmax index on
 * inserted_at): a keeper's first pass reads every row, the next ones what came since the pass
 * before (less the margin).
 */
export function dirtyHoursStatement(database: string): string {
  return `SELECT written.agent_id AS agent_id, toUnixTimestamp(written.hour) AS minute
FROM (
  SELECT agent_id, toStartOfHour(minute) AS hour, max(inserted_at) AS last_stored
  FROM ${database}.agent_latency_minute
  WHERE inserted_at >= fromUnixTimestamp64Milli({sinceMs:Int64}, 'UTC')
  GROUP BY agent_id, hour
) AS written
LEFT JOIN (
  SELECT agent_id, hour, max(version) AS recomputed FROM ${database}.agent_latency_hour GROUP BY agent_id, hour
) AS rolled ON written.agent_id = rolled.agent_id AND written.hour = rolled.hour
WHERE toUnixTimestamp64Nano(written.last_stored) + ${insertVisibilityMarginSeconds * 1e9} > rolled.recomputed
SETTINGS join_use_nulls = 0`
}

/** The agent-hours dirtyHoursStatement finds: minute rows stored since `sinceMs` that the hour rollup has not taken in. */
export async function dirtyLatencyHours(
  client: ClickHouseClient,
  database: string,
  sinceMs: number,
): Promise<AgentHour[]> {
  const result = await client.query({
    query: dirtyHoursStatement(database),
    query_params: { sinceMs },
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  return agentHours(await result.json<{ agent_id: string; minute: number }>())
}
