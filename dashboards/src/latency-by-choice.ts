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
// `where` is the dashboard's filter on conversations columns (clickhouse-variables.ts), which the
// rollup carries; the table is aliased `conversation`.
export function conversationLatencyFrom(where: string): string {
  return `${database}.conversation_latency AS conversation FINAL
${continuationMark}WHERE $__timeFilter(event_time)
${continuationMark}  AND ${where}`
}

/** The end-to-end latency histogram of the turns of a group's conversations (those meeting `condition`). */
export const turnsHistogram = (condition?: string) => mergedHistogram('e2e_latency', condition)

/** A percentile of the turns' end-to-end latency, milliseconds (`condition`: of those conversations only). */
export const turnsQuantileMs = (level: number, condition?: string) =>
  `${histogramQuantile(level, turnsHistogram(condition))} * 1000`

/** Turns, p50/p90/p95 of e2e_latency (ms), conversations and failed share, as SELECT columns. */
export const latencyAndFailureColumns = (suffix = '', condition?: string) => {
  const ifSuffix = condition === undefined ? '' : 'If'
  const failed = condition === undefined ? 'conversation.failed' : `conversation.failed AND ${condition}`
  const conversations = `count${ifSuffix}(${condition ?? ''})`
  const quantile = (level: number) =>
    `round(${turnsQuantileMs(level, condition)}) AS e2e_p${level * 100}_ms${suffix}`
  return [
    `${histogramCount(turnsHistogram(condition))} AS turns${suffix}`,
    quantile(0.5),
    quantile(0.9),
    quantile(0.95),
    `${conversations} AS conversations${suffix}`,
    `round(countIf(${failed}) / nullIf(${conversations}, 0), 4) AS failed_share${suffix}`,
  ].join(`,\n${continuationMark}`)
}

// Grouped by bucket first (#23), where that is faster: the conversations' buckets array-joined and
// summed per group and bucket, so that sumMap, which merges a map per row, sees a few rows per group
// instead of one per conversation. Measured panel by panel at 3,000,000 conversations over 30 days
// (bench/results/queries.md): the telecom provider table 2.6 -> 1.5 s (a few groups, a key outside
// the sorting key); per campaign slower (1.4 -> 1.9-2.5 s: a String key copied onto every bucket),
// per agent slower (3.1 -> 5.0 s: grouping by the sorting key's first column after FINAL), per test
// run the same, the series over time twice as slow (a group per interval leaves nearly as many grouped
// rows as buckets). So only the provider table reads them.

/**
 * The conversations in range meeting `where`, one row per group and histogram bucket: `keys`
 * (`expression AS name`, grouped by name), `bucket`, `turns_in_bucket` (the group's turns in it), and
 * `conversations_counted` / `failed_counted`, the group's conversations counted once each (on their
 * first bucket, or their one row when they have no turns). Named apart from the columns the query
 * around names (turns, conversations), which ClickHouse would substitute inside its sums. The query
 * around groups by the keys' names and reads groupedLatencyAndFailureColumns.
 */
export function conversationLatencyGroups(where: string, keys: readonly string[]): string {
  const names = keys.map((key) => key.slice(key.lastIndexOf(' AS ') + 4))
  const columns = [
    ...keys,
    'bucket',
    'sum(bucket_turns) AS turns_in_bucket',
    'countIf(position <= 1) AS conversations_counted',
    'countIf(position <= 1 AND conversation.failed) AS failed_counted',
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

/** latencyAndFailureColumns over conversationLatencyGroups: the same columns, the same answers. */
export const groupedLatencyAndFailureColumns = () => {
  const histogram = 'sumMap([bucket], [turns_in_bucket])'
  const quantile = (level: number) =>
    `round(${histogramQuantile(level, histogram)} * 1000) AS e2e_p${level * 100}_ms`
  return [
    `${histogramCount(histogram)} AS turns`,
    quantile(0.5),
    quantile(0.9),
    quantile(0.95),
    'sum(conversations_counted) AS conversations',
    'round(sum(failed_counted) / nullIf(sum(conversations_counted), 0), 4) AS failed_share',
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
          ifNull(any(conversation.campaign_name), conversation.campaign_id) AS campaign,
          ${latencyAndFailureColumns()}
        FROM ${conversationLatencyFrom(where)}
          AND conversation.campaign_id IS NOT NULL
        GROUP BY conversation.campaign_id
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
          ${groupedLatencyAndFailureColumns()}
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
          conversation.test_run_id AS test_run_id,
          min(conversation.event_time) AS started,
          ${latencyAndFailureColumns()}
        FROM ${conversationLatencyFrom(where)}
          AND conversation.test_run_id IS NOT NULL
        GROUP BY conversation.test_run_id
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
          ifNull(any(conversation.agent_name), agent_id) AS agent,
          ${latencyAndFailureColumns('_production', 'NOT conversation.is_test')},
          ${latencyAndFailureColumns('_test', 'conversation.is_test')}
        FROM ${conversationLatencyFrom(where)}
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
