import { HeatmapCellLayout } from '@grafana/grafana-foundation-sdk/common'
import { DashboardBuilder, RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard'
import {
  HeatmapColorOptionsBuilder,
  PanelBuilder as HeatmapPanel,
  RowsHeatmapOptionsBuilder,
  YAxisConfigBuilder,
} from '@grafana/grafana-foundation-sdk/heatmap'
import { includeFlaggedVariable } from './clickhouse-filters.ts'
import { filters, rollupColumn, variables } from './clickhouse-variables.ts'
import { agentCostsTable, costPerAgentOverTime, totalCost, unpricedCalls } from './cost-panel-sql.ts'
import { database, tableSql, timeseriesSql } from './grafana-queries.ts'
import {
  perCampaignTable,
  perTelecomProviderTable,
  testVersusProductionOverTime,
  testVersusProductionTable,
} from './latency-by-choice.ts'
import { histogramQuantile, mergedHistogram } from './latency-histogram.ts'
import { latencyRollupRows } from './latency-rollup-rows.ts'
import { conversationOrigins } from './origin-panel-sql.ts'
import { stat, table, timeseries } from './panels.ts'
import {
  conversationsCount,
  failedRoomsCount,
  percentilesOverTime,
  slowestTurns,
} from './shared-panel-sql.ts'
import { versionChangeAnnotation, versionChangesTable } from './version-changes-sql.ts'

// Voice latency: how fast the agents answer. Latencies are stored in seconds (the platform's
// unit) and shown in milliseconds. Percentiles per agent come from the latency rollups (whole hours
// from agent_latency_hour, the rest from agent_latency_minute: latency-rollup-rows.ts; histograms
// merged per interval, latency-histogram.ts); the breakdowns
// from the per-conversation rollup (latency-by-choice.ts); the distribution and the slowest
// conversations from the base tables, the slowest turns from the items of the slowest conversations.
const latencyMetrics = [
  ['e2e_latency', 'End-to-end latency', 'from the end of the user speaking to the agent starting to answer'],
  ['llm_node_ttft', 'LLM time to first token', 'from the LLM request to its first token'],
  ['tts_node_ttfb', 'TTS time to first byte', 'from the TTS request to its first audio byte'],
  ['transcription_delay', 'Transcription delay', 'from the end of speech to the final transcript'],
  ['end_of_turn_delay', 'End-of-turn delay', 'from the end of speech to the decision that the user finished'],
] as const

/**
 * Upper bounds (ms) of the heatmap's buckets; each column counts the turns above the previous bound.
 * conversation_latency counts each conversation's turns per band with these bounds (migration 0014).
 */
export const heatmapBucketsMs = [250, 500, 750, 1000, 1500, 2000, 3000, 5000]
const chosenBands = `if(\${${includeFlaggedVariable}:raw} = 1, arrayMap((unflagged, flagged) -> unflagged + flagged, e2e_latency_unflagged_bands, e2e_latency_flagged_bands), e2e_latency_unflagged_bands)`
const heatmapColumns = [...heatmapBucketsMs.map(String), '+Inf']
  .map((bound, index) => `bands[${index + 1}] AS \`${bound}\``)
  .join(',\n    ')

/** One percentile of a latency over every turn in range, from the rollup, in milliseconds. */
const rangeQuantileStat = (title: string, metric: string, quantile: number) =>
  stat(
    title,
    `p${quantile * 100} of ${metric} over all turns in range.`,
    [
      tableSql(`
        SELECT ${histogramQuantile(quantile, mergedHistogram(metric))} * 1000 AS p${quantile * 100}_ms
        FROM ${latencyRollupRows([metric], false)}
        WHERE ${rollupColumn(metric, 'count')} > 0`),
    ],
    'ms',
  )

export function voiceLatencyDashboard() {
  const dashboard = new DashboardBuilder('Voice latency')
    .uid('voice-latency')
    .description('How fast the agents answer, per agent, from ClickHouse (milliseconds)')
    .tags(['voice-analytics', 'latency'])
    .time({ from: 'now-24h', to: 'now' })
    .refresh('1m')
    .readonly()
    .withVariable(variables.source())
    .withVariable(variables.agent())
    .withVariable(variables.campaign())
    .withVariable(variables.telecom_provider())
    .withVariable(variables.include_flagged())
    .annotation(versionChangeAnnotation())

  dashboard
    .withRow(new RowBuilder('Overview'))
    .withPanel(
      stat('Conversations', 'Conversations that started in the time range.', [tableSql(conversationsCount)]),
    )
    .withPanel(
      stat('Agent turns', 'Turns with an end-to-end latency (flagged ones only when included).', [
        tableSql(`
          SELECT sum(${rollupColumn('e2e_latency', 'count')}) AS turns
          FROM ${latencyRollupRows(['e2e_latency'], false)}`),
      ]),
    )
    .withPanel(rangeQuantileStat('Median end-to-end latency', 'e2e_latency', 0.5))
    .withPanel(rangeQuantileStat('p95 end-to-end latency', 'e2e_latency', 0.95))
    .withPanel(rangeQuantileStat('p95 LLM time to first token', 'llm_node_ttft', 0.95))
    .withPanel(
      stat('Failed rooms', 'Conversations whose room failed (room_metadata.failed).', [
        tableSql(failedRoomsCount),
      ]),
    )

  dashboard.withRow(new RowBuilder('Percentiles per agent (p50, p95, p99)'))
  for (const [metric, title, meaning] of latencyMetrics)
    dashboard.withPanel(
      timeseries(
        `${title} per agent`,
        `${metric}: ${meaning}. p50, p95 and p99 per agent, milliseconds.`,
        [timeseriesSql(percentilesOverTime(metric))],
        { unit: 'ms' },
      ),
    )

  dashboard
    .withRow(new RowBuilder('Distribution'))
    .withPanel(
      new HeatmapPanel()
        .title('End-to-end latency distribution')
        .description('Turns per latency bucket (upper bound in milliseconds) over time.')
        .targets([
          timeseriesSql(`
            SELECT
              time,
              ${heatmapColumns}
            FROM (
              SELECT $__timeInterval(event_time) AS time, sumForEach(${chosenBands}) AS bands
              FROM ${database}.conversation_latency FINAL
              WHERE $__timeFilter(event_time)
                AND ${filters.conversations}
              GROUP BY time
              HAVING arraySum(bands) > 0)
            ORDER BY time`),
        ])
        .calculate(false)
        .rowsFrame(new RowsHeatmapOptionsBuilder().layout(HeatmapCellLayout.Le))
        .yAxis(new YAxisConfigBuilder().unit('ms'))
        .color(new HeatmapColorOptionsBuilder().scheme('Oranges').steps(64))
        .span(12)
        .height(9),
    )
    .withPanel(
      table(
        'Percentiles per agent over the range',
        'Turns and p50/p90/p99 per agent for each latency over all its values in range, milliseconds.',
        [
          tableSql(`
            SELECT
              ifNull(agent_name, agent_id) AS agent,
              sum(${rollupColumn('e2e_latency', 'count')}) AS turns,
              round(${histogramQuantile(0.5, mergedHistogram('e2e_latency'))} * 1000) AS e2e_p50_ms,
              round(${histogramQuantile(0.9, mergedHistogram('e2e_latency'))} * 1000) AS e2e_p90_ms,
              round(${histogramQuantile(0.99, mergedHistogram('e2e_latency'))} * 1000) AS e2e_p99_ms,
              round(${histogramQuantile(0.5, mergedHistogram('llm_node_ttft'))} * 1000) AS llm_ttft_p50_ms,
              round(${histogramQuantile(0.9, mergedHistogram('llm_node_ttft'))} * 1000) AS llm_ttft_p90_ms,
              round(${histogramQuantile(0.5, mergedHistogram('tts_node_ttfb'))} * 1000) AS tts_ttfb_p50_ms,
              round(${histogramQuantile(0.9, mergedHistogram('tts_node_ttfb'))} * 1000) AS tts_ttfb_p90_ms
            FROM ${latencyRollupRows(['e2e_latency', 'llm_node_ttft', 'tts_node_ttfb'], false)}
            GROUP BY agent
            HAVING turns > 0
            ORDER BY e2e_p90_ms DESC`),
        ],
        12,
        9,
      ),
    )

  dashboard
    .withRow(new RowBuilder('Latency and failures by what you can change'))
    .withPanel(perCampaignTable(filters.conversations))
    .withPanel(perTelecomProviderTable(filters.conversations))
    .withPanel(testVersusProductionTable(filters.conversations))
    .withPanel(testVersusProductionOverTime(filters.conversations))

  dashboard
    .withRow(new RowBuilder('Agent changes'))
    .withPanel(
      table(
        'Changes',
        "Each change of an agent's instructions in range (a version is the normalised System message, named by its commonest configuration fingerprint), with the figures of its calls before and after in range. `voice-analytics versions --agent` gives them over comparable windows with confidence intervals.",
        [tableSql(versionChangesTable)],
      ),
    )

  dashboard
    .withRow(new RowBuilder('Sources'))
    .withPanel(
      table(
        'Where conversations come from',
        "Conversations in range per source, by webhook or assembled from an open framework's OpenTelemetry spans (docs/otlp.md), with those assembled without their root span (their end and some turns may be missing), failed rooms and the median of the calls' median end-to-end latency.",
        [tableSql(conversationOrigins)],
      ),
    )

  dashboard
    .withRow(new RowBuilder('Cost'))
    .withPanel(
      timeseries(
        'Cost of each agent',
        'What the priced conversations of each agent cost per interval (docs/costs.md).',
        [timeseriesSql(costPerAgentOverTime)],
        { width: 16 },
      ),
    )
    .withPanel(stat('Cost', 'What the priced conversations in range cost.', [tableSql(totalCost)]))
    .withPanel(
      stat(
        'Unpriced calls',
        'Conversations a price is missing for: left out of every cost, never counted as free.',
        [tableSql(unpricedCalls)],
      ),
    )
    .withPanel(
      table(
        'Agent costs',
        'Per agent: cost, per call and per minute, what failed rooms cost, and the conversations left unpriced.',
        [tableSql(agentCostsTable)],
      ),
    )
    .withRow(new RowBuilder('Slowest'))
    .withPanel(
      table(
        'Slowest conversations',
        'By p95 end-to-end latency of the conversation, over all its turns (flagged ones too: flagged_turns says how many); milliseconds.',
        [
          tableSql(`
          SELECT
            session_id,
            ifNull(agent_name, agent_id) AS agent,
            event_time AS started,
            source,
            ifNull(campaign_name, '') AS campaign,
            ifNull(telecom_provider, 'none') AS telecom_provider,
            round(e2e_latency_p95 * 1000) AS e2e_p95_ms,
            round(llm_node_ttft_p95 * 1000) AS llm_ttft_p95_ms,
            round(tts_node_ttfb_p95 * 1000) AS tts_ttfb_p95_ms,
            round(transcription_delay_p95 * 1000) AS transcription_p95_ms,
            user_turn_count AS user_turns,
            interruption_count AS interruptions,
            flagged_item_count AS flagged_turns
          FROM ${database}.conversations FINAL
          WHERE $__timeFilter(event_time)
            AND e2e_latency_p95 IS NOT NULL
            AND ${filters.conversations}
          ORDER BY e2e_latency_p95 DESC
          LIMIT 50`),
        ],
      ),
    )
    .withPanel(
      table(
        'Slowest turns',
        'Agent turns by end-to-end latency, with what was said; milliseconds. metric_flags: the invariants its metrics break (docs/metric-quality.md), empty when none.',
        [tableSql(slowestTurns)],
      ),
    )
  return dashboard
}
