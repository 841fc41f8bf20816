import { continuationMark, database, tableSql, timeseriesSql } from './grafana-queries.ts'
import { histogramArrays, histogramCount, histogramQuantile, mergedHistogram } from './latency-histogram.ts'
import { table, timeseries } from './panels.ts'

// Latency and failures by what the user can change: the campaign, the telecom provider, the test
// run, and test traffic against production traffic of the same agent in the same window. Shared
// by the Voice latency, Campaigns and Agent tests dashboards.
//
// Read from the per-conversation rollup (conversation_latency, migration 0008): one row per
// conversation with what these panels break down by and the histogram of its turns' end-to-end
// latencies, so a panel reads one row per conversation instead of every item row. A conversation
// without turns (a room that failed before anyone spoke) still counts in the failure rate. Each
// conversation carries `failed` (its room failed or the platform sent an error_message, as the
// campaign alert counts) and `is_test` (a conversation of a test run or a test; everything else is
// production). Turns of flagged items are left out unless $include_flagged says 1 (their
// conversation still counts). Percentiles come from the merged histograms, within 1 % of the exact
// ones (latency-histogram.ts). Every dashboard that uses this has the $include_flagged variable.
//
// The tables merge their histograms in two steps (#23): the conversations' buckets are array-joined
// and summed per group and bucket, and only those few rows go through sumMap, which merges a map per
// row (over one row per conversation it took 3.1-3.3 s for the 3,000,000 conversations of a month).
// The same answers come in about two thirds of the time. A series over time has a group per
// interval: there the grouped rows are nearly as many as the array elements and the two steps took
// twice as long (bench/results/queries.md), so the series read one row per conversation.

/**
 * The conversations in range meeting `where` (the dashboard's filter on conversations columns, which
 * the rollup carries; the table is aliased `conversation`), one row per group and histogram bucket:
 * `keys` (`expression AS name`, grouped by name), `bucket` and `turns_in_bucket` (the group's turns in
 * it), and `conversations_counted` / `failed_counted`, the group's conversations counted once each (on
 * their first bucket, or their one row when they have no turns). Named apart from the columns the
 * query around names (turns, conversations), which ClickHouse would substitute inside the sums.
 * `extras` are more aggregates of the group (`any(conversation.campaign_name) AS names`), merged again
 * by the query around it, which groups by the keys' names and reads the columns below
 * (turnsHistogram, latencyAndFailureColumns).
 */
export function conversationLatencyGroups(
  where: string,
  keys: readonly string[],
  extras: readonly string[] = [],
): string {
  const names = keys.map((key) => key.slice(key.lastIndexOf(' AS ') + 4))
  const columns = [
    ...keys,
    'bucket',
    'sum(bucket_turns) AS turns_in_bucket',
    'countIf(position <= 1) AS conversations_counted',
    'countIf(position <= 1 AND conversation.failed) AS failed_counted',
    ...extras,
  ]
  return `(
${continuationMark}  SELECT
${continuationMark}    ${columns.join(`,\n${continuationMark}    `)}
${continuationMark}  FROM ${database}.conversation_latency AS conversation FINAL
${continuationMark}  LEFT ARRAY JOIN
${continuationMark}    ${histogramArrays('e2e_latency', 'buckets')} AS bucket,
${continuationMark}    ${histogramArrays('e2e_latency', 'bucket_counts')} AS bucket_turns,
${continuationMark}    arrayEnumerate(${histogramArrays('e2e_latency', 'buckets')}) AS position
${continuationMark}  WHERE $__timeFilter(event_time)
${continuationMark}    AND ${where}
${continuationMark}  GROUP BY ${[...names, 'bucket'].join(', ')})`
}

/** The end-to-end latency histogram of a group's turns (of its rows meeting `condition`), over conversationLatencyGroups. */
const groupedTurnsHistogram = (condition?: string) =>
  condition === undefined
    ? 'sumMap([bucket], [turns_in_bucket])'
    : `sumMapIf([bucket], [turns_in_bucket], ${condition})`

/**
 * The conversations in range meeting `where`, one row each (the series over time read them so: per
 * interval there are too few conversations for grouping by bucket first to pay, measured).
 */
export function conversationLatencyFrom(where: string): string {
  return `${database}.conversation_latency AS conversation FINAL
${continuationMark}WHERE $__timeFilter(event_time)
${continuationMark}  AND ${where}`
}

/** The end-to-end latency histogram of the turns of a group's conversations, over conversationLatencyFrom. */
export const turnsHistogram = () => mergedHistogram('e2e_latency')

/** A percentile of the turns' end-to-end latency, milliseconds, over conversationLatencyFrom. */
export const turnsQuantileMs = (level: number) => `${histogramQuantile(level, turnsHistogram())} * 1000`

/** Turns, p50/p90/p95 of e2e_latency (ms), conversations and failed share, as SELECT columns over conversationLatencyGroups. */
export const latencyAndFailureColumns = (suffix = '', condition?: string) => {
  const sum = (column: string) =>
    condition === undefined ? `sum(${column})` : `sumIf(${column}, ${condition})`
  const histogram = groupedTurnsHistogram(condition)
  const quantile = (level: number) =>
    `round(${histogramQuantile(level, histogram)} * 1000) AS e2e_p${level * 100}_ms${suffix}`
  return [
    `${histogramCount(histogram)} AS turns${suffix}`,
    quantile(0.5),
    quantile(0.9),
    quantile(0.95),
    `${sum('conversations_counted')} AS conversations${suffix}`,
    `round(${sum('failed_counted')} / nullIf(${sum('conversations_counted')}, 0), 4) AS failed_share${suffix}`,
  ].join(`,\n${continuationMark}`)
}

const description = (by: string) =>
  `Per ${by}: agent turns and p50/p90/p95 of end-to-end latency (milliseconds), conversations, ` +
  'and the share that failed (room failed or the platform reported an error).'

/** One row per campaign (only campaign calls). */
export const perCampaignTable = (where: string) =>
  table(
    'Latency and failures per campaign',
    description('campaign'),
    [
      tableSql(`
        SELECT
          ifNull(any(campaign_names), campaign_id) AS campaign,
          ${latencyAndFailureColumns()}
        FROM ${conversationLatencyGroups(
          `${where} AND conversation.campaign_id IS NOT NULL`,
          ['conversation.campaign_id AS campaign_id'],
          ['any(conversation.campaign_name) AS campaign_names'],
        )}
        GROUP BY campaign_id
        ORDER BY e2e_p90_ms DESC`),
    ],
    12,
    9,
  )

/** One row per telecom provider; web calls (no provider) are `none`. */
export const perTelecomProviderTable = (where: string) =>
  table(
    'Latency and failures per telecom provider',
    description('telecom provider (none: web calls)'),
    [
      tableSql(`
        SELECT
          telecom_provider,
          ${latencyAndFailureColumns()}
        FROM ${conversationLatencyGroups(where, ["ifNull(conversation.telecom_provider, 'none') AS telecom_provider"])}
        GROUP BY telecom_provider
        ORDER BY e2e_p90_ms DESC`),
    ],
    12,
    9,
  )

/** One row per test run, newest first. */
export const perTestRunTable = (where: string) =>
  table(
    'Latency and failures per test run',
    `${description('test run')} Newest run first.`,
    [
      tableSql(`
        SELECT
          test_run_id,
          min(first_event_time) AS started,
          ${latencyAndFailureColumns()}
        FROM ${conversationLatencyGroups(
          `${where} AND conversation.test_run_id IS NOT NULL`,
          ['conversation.test_run_id AS test_run_id'],
          ['min(conversation.event_time) AS first_event_time'],
        )}
        GROUP BY test_run_id
        ORDER BY started DESC
        LIMIT 100`),
    ],
    24,
    9,
  )

/** Per agent, production and test traffic of the same window in adjacent columns. */
export const testVersusProductionTable = (where: string) =>
  table(
    'Test vs production traffic of each agent',
    'Per agent, over the same time range: production conversations beside test conversations (a test run or ' +
      'test id): turns, p50/p90/p95 end-to-end latency (ms), conversations and failed share. A test that is much ' +
      'faster than production does not test what callers get.',
    [
      tableSql(`
        SELECT
          ifNull(any(agent_names), agent_id) AS agent,
          ${latencyAndFailureColumns('_production', 'NOT is_test')},
          ${latencyAndFailureColumns('_test', 'is_test')}
        FROM ${conversationLatencyGroups(
          where,
          ['conversation.agent_id AS agent_id', 'conversation.is_test AS is_test'],
          ['any(conversation.agent_name) AS agent_names'],
        )}
        GROUP BY agent_id
        ORDER BY agent`),
    ],
    12,
    9,
  )

/** p90 of e2e_latency over time per agent, test and production as separate series. */
export const testVersusProductionOverTime = (where: string) =>
  timeseries(
    'p90 end-to-end latency: test vs production',
    'p90 of end-to-end latency per interval, per agent, test traffic and production traffic as separate series; milliseconds.',
    [
      timeseriesSql(`
        SELECT
          $__timeInterval(event_time) AS time,
          ifNull(conversation.agent_name, agent_id) AS agent,
          if(conversation.is_test, 'test', 'production') AS traffic,
          ${turnsQuantileMs(0.9)} AS p90
        FROM ${conversationLatencyFrom(where)}
        GROUP BY time, agent, traffic
        HAVING ${histogramCount(turnsHistogram())} > 0
        ORDER BY time, agent, traffic`),
    ],
    { unit: 'ms' },
  )
