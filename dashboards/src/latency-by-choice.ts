import { itemsAsFlaggedChosen } from './clickhouse-filters.ts'
import { continuationMark, database, tableSql, timeseriesSql } from './grafana-queries.ts'
import { table, timeseries } from './panels.ts'

// Latency and failures by what the user can change: the campaign, the telecom provider, the test
// run, and test traffic against production traffic of the same agent in the same window. Shared
// by the Voice latency, Campaigns and Agent tests dashboards.
//
// One row per conversation and agent turn: conversations LEFT JOIN their turns with an
// e2e_latency, so a conversation without turns (a room that failed before anyone spoke) still
// counts in the failure rate. Percentiles read the turns (NULL for such a conversation, which
// quantiles skip); conversations and failures count distinct sessions. Each conversation carries
// `failed` (its room failed or the platform sent an error_message, as the campaign alert counts)
// and `is_test` (a conversation of a test run or a test; everything else is production). Turns of
// flagged items are left out unless $include_flagged says 1 (their conversation still counts).
// Every dashboard that uses this has that variable.
// `where` is the dashboard's filter on conversations columns (clickhouse-variables.ts).
export function conversationsWithTurns(where: string): string {
  return `(
${continuationMark}  SELECT *,
${continuationMark}    room_failed = true OR ifNull(error_message, '') != '' AS failed,
${continuationMark}    test_run_id IS NOT NULL OR test_id IS NOT NULL AS is_test
${continuationMark}  FROM ${database}.conversations FINAL
${continuationMark}  WHERE $__timeFilter(event_time)
${continuationMark}) AS conversation
${continuationMark}LEFT JOIN (
${continuationMark}  SELECT agent_id, event_time, session_id, e2e_latency
${continuationMark}  FROM ${database}.conversation_items FINAL
${continuationMark}  WHERE $__timeFilter(event_time)
${continuationMark}    AND e2e_latency IS NOT NULL
${continuationMark}    AND ${itemsAsFlaggedChosen()}
${continuationMark}) AS turn USING (agent_id, event_time, session_id)
${continuationMark}WHERE ${where}`
}

/** Turns, p50/p90/p95 of e2e_latency (ms), conversations and failed share, as SELECT columns. */
export const latencyAndFailureColumns = (suffix = '', condition?: string) => {
  const turns = condition === undefined ? 'turn.e2e_latency' : `turn.e2e_latency, ${condition}`
  const sessions = condition === undefined ? 'session_id' : `session_id, ${condition}`
  const failed = condition === undefined ? 'conversation.failed' : `conversation.failed AND ${condition}`
  const ifSuffix = condition === undefined ? '' : 'If'
  const quantile = (level: number) =>
    `round(quantileExact${ifSuffix}(${level})(${turns}) * 1000) AS e2e_p${level * 100}_ms${suffix}`
  return [
    `count${ifSuffix}(${turns}) AS turns${suffix}`,
    quantile(0.5),
    quantile(0.9),
    quantile(0.95),
    `uniqExact${ifSuffix}(${sessions}) AS conversations${suffix}`,
    `round(uniqExactIf(session_id, ${failed}) / nullIf(uniqExact${ifSuffix}(${sessions}), 0), 4) AS failed_share${suffix}`,
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
        FROM ${conversationsWithTurns(where)}
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
          ifNull(conversation.telecom_provider, 'none') AS telecom_provider,
          ${latencyAndFailureColumns()}
        FROM ${conversationsWithTurns(where)}
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
        FROM ${conversationsWithTurns(where)}
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
        FROM ${conversationsWithTurns(where)}
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
          quantileExact(0.9)(turn.e2e_latency) * 1000 AS p90
        FROM ${conversationsWithTurns(where)}
          AND turn.e2e_latency IS NOT NULL
        GROUP BY time, agent, traffic
        ORDER BY time, agent, traffic`),
    ],
    { unit: 'ms' },
  )
