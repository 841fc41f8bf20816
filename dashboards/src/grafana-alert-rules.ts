import type * as alerting from '@grafana/grafana-foundation-sdk/alerting'
import { QueryBuilder, RuleBuilder } from '@grafana/grafana-foundation-sdk/alerting'
import { TypeReduceBuilder, TypeThresholdBuilder } from '@grafana/grafana-foundation-sdk/expr'
import { clickhouseDatasource, database, tableSql } from './grafana-queries.ts'
import { latencyRegressionSql, type RegressionSettings } from './latency-regression-sql.ts'
import { qualityFigures } from './quality-panel-sql.ts'

// Grafana alert rules on ClickHouse, for what only ClickHouse knows (test pass rates, campaign
// outcomes) or knows per conversation (failed rooms with their errors, across restarts of the
// worker). Each query returns one row per agent or campaign: its string columns become the
// alert's labels (unique per row), its number the value; a reduce (last) and a threshold
// decide. Prometheus alerting rules (dashboards/prometheus/rules) cover the pipeline and the
// per-agent SLOs.

/** The thresholds and windows of these rules: edit here and run `npm run dashboards`. */
export const grafanaAlertThresholds = {
  /** Failed rooms of one agent within the window that fire. */
  failedRoomsPerAgent: 3,
  failedRoomsWindowMinutes: 30,
  /** An agent's test pass rate below this (0..1) fires, given enough evaluated tests. */
  testPassRateBelow: 0.8,
  testMinEvaluated: 10,
  testWindowHours: 24,
  /** A campaign's share of calls with a failed room or an error above this (0..1) fires. */
  campaignFailureShareAbove: 0.2,
  campaignMinCalls: 20,
  campaignWindowMinutes: 60,
  /**
   * Latency percentile rules (per agent, campaign and telecom provider): this quantile of
   * e2e_latency (0.9 = p90) above the seconds fires, judged only with at least latencyMinTurns
   * agent turns in the window (the SQL's HAVING count(): fewer turns return no row, no alert).
   */
  latencyQuantile: 0.9,
  latencyAboveSeconds: 2,
  latencyMinTurns: 50,
  latencyWindowMinutes: 30,
  /**
   * A campaign's cost per completed call (the cost of its priced calls over its priced completed
   * calls, in the prices' currency; docs/costs.md) above this fires, judged only with at least
   * campaignCostMinCompleted priced completed calls in the window (HAVING: fewer, no row, no alert).
   */
  campaignCostPerCompletedCallAbove: 1,
  campaignCostMinCompleted: 20,
  campaignCostWindowHours: 24,
  /**
   * Conversation quality (#31), per agent over the window, judged only with at least qualityMinCalls
   * calls with speech (HAVING: fewer, no row, no alert): the share of calls with dead air (a silence
   * longer than DEAD_AIR_SECONDS) above deadAirShareAbove, or caller barge-ins per agent turn above
   * bargeInsPerAgentTurnAbove.
   */
  deadAirShareAbove: 0.3,
  bargeInsPerAgentTurnAbove: 0.25,
  qualityMinCalls: 20,
  qualityWindowMinutes: 30,
  /**
   * Latency regression against the agent's own past (#32, latency-regression-sql.ts): fires when its
   * median or p95 e2e_latency (regressionQuantiles) rose by more than regressionMinEffectSeconds
   * beyond chance: when, for one of them, the lower confidence bound of the share of its recent turns
   * slower than the past quantile + that effect is above the share the quantile leaves above it. The
   * past is its previous version when its instructions changed in the last regressionVersionHours,
   * else the same regressionRecentMinutes of the week over the previous regressionBaselineWeeks.
   * Judged only with at least regressionMinRecentCalls calls now and regressionMinPastCalls in the
   * past. Bounds at regressionZ (2.24: 98.75 % each, four bounds together 95 %).
   */
  regressionQuantiles: [0.5, 0.95],
  regressionZ: 2.24,
  regressionMinEffectSeconds: 0.1,
  regressionRecentMinutes: 60,
  regressionBaselineWeeks: 4,
  regressionVersionHours: 6,
  regressionMinRecentCalls: 30,
  regressionMinPastCalls: 60,
}

export const alertFolder = 'voice-analytics'
export const alertGroup = 'voice-analytics-clickhouse'
const t = grafanaAlertThresholds

interface ClickHouseRule {
  uid: string
  title: string
  windowSeconds: number
  rawSql: string
  threshold: { type: 'gt' | 'lt' | 'gte' | 'lte'; value: number }
  summary: string
  description: string
  severity: 'critical' | 'warning'
  /**
   * More numbers for the notification, each a query over the same window with the same labels (or
   * fewer) as the rule's rows: the summary reads them as $values.<refId>.Value. A query, not a
   * label: a label whose value changes every evaluation would make every evaluation a new alert.
   */
  figures?: { refId: string; rawSql: string }[]
}

const percentile = `p${Math.round(t.latencyQuantile * 100)}`
/** The value column of the latency rules: the chosen quantile of e2e_latency, seconds. */
const latencyQuantile = (column: string) =>
  `quantileExact(${t.latencyQuantile})(${column}) AS e2e_latency_${percentile}`
/**
 * Agent turns with an e2e_latency joined to their conversation's campaign and telecom provider.
 * The latency rules judge unflagged turns only (docs/metric-quality.md), as the Prometheus rules,
 * whose histograms never see flagged values: an impossible value must not fire an alert.
 */
const turnsWithCall = `${database}.conversation_items AS turn FINAL
      INNER JOIN (
        SELECT agent_id, event_time, session_id, campaign_id, campaign_name, telecom_provider
        FROM ${database}.conversations FINAL
        WHERE $__timeFilter(event_time)
      ) AS conversation USING (agent_id, event_time, session_id)
      WHERE $__timeFilter(event_time)
        AND turn.e2e_latency IS NOT NULL
        AND empty(turn.metric_flags)`

const latencyRule = (
  scope: { uid: string; title: string; label: string; noun: string },
  rawSql: string,
  advice: string,
): ClickHouseRule => ({
  uid: scope.uid,
  title: scope.title,
  windowSeconds: t.latencyWindowMinutes * 60,
  rawSql,
  threshold: { type: 'gt', value: t.latencyAboveSeconds },
  summary:
    `${scope.noun} {{ $labels.${scope.label} }}: ${percentile} end-to-end latency {{ humanizeDuration $values.B.Value }} ` +
    `over the last ${t.latencyWindowMinutes} minutes. ${advice}`,
  description:
    `${percentile} of e2e_latency above ${t.latencyAboveSeconds} s, judged only with at least ${t.latencyMinTurns} turns ` +
    `in ${t.latencyWindowMinutes} min (latencyQuantile, latencyAboveSeconds, latencyMinTurns in dashboards/src/grafana-alert-rules.ts). ` +
    'Dashboard: /d/voice-latency',
  severity: 'warning',
})

const regressionSettings: RegressionSettings = {
  quantiles: t.regressionQuantiles,
  z: t.regressionZ,
  recentMinutes: t.regressionRecentMinutes,
  baselineWeeks: t.regressionBaselineWeeks,
  versionHours: t.regressionVersionHours,
  minEffectSeconds: t.regressionMinEffectSeconds,
  minRecentCalls: t.regressionMinRecentCalls,
  minPastCalls: t.regressionMinPastCalls,
}
/** The queries of the regression rule's "after" figures, one per judged quantile. */
const regressionFigureRefIds = ['D', 'E']

/** An agent's calls with measurable speech in the window (the quality rules' rows). */
const agentSpeechCalls = (condition = '1 = 1') => `${database}.conversations FINAL
      WHERE $__timeFilter(event_time)
        AND agent_talk_ms IS NOT NULL
        AND ${condition}
      GROUP BY agent`

const rules: ClickHouseRule[] = [
  {
    uid: 'voice-failed-rooms-clickhouse',
    title: 'Failed rooms per agent (ClickHouse)',
    windowSeconds: t.failedRoomsWindowMinutes * 60,
    rawSql: `
      SELECT ifNull(agent_name, agent_id) AS agent, toFloat64(countIf(room_failed)) AS failed_rooms
      FROM ${database}.conversations FINAL
      WHERE $__timeFilter(event_time)
      GROUP BY agent
      HAVING failed_rooms > 0`,
    threshold: { type: 'gte', value: t.failedRoomsPerAgent },
    summary:
      'Agent {{ $labels.agent }} had {{ $values.B.Value }} failed rooms in the last ' +
      `${t.failedRoomsWindowMinutes} minutes. List them with room_error and error_message ` +
      '(docs/sql-cookbook.md, "Failed rooms and their errors"); then check the platform and the agent\'s telephony setup.',
    description: `Threshold ${t.failedRoomsPerAgent} in ${t.failedRoomsWindowMinutes} min (dashboards/src/grafana-alert-rules.ts). Dashboard: /d/voice-latency`,
    severity: 'critical',
  },
  {
    uid: 'voice-test-pass-rate-clickhouse',
    title: 'Agent test pass rate low (ClickHouse)',
    windowSeconds: t.testWindowHours * 3600,
    rawSql: `
      SELECT ifNull(agent_name, agent_id) AS agent,
        countIf(test_success) / countIf(test_success IS NOT NULL) AS pass_rate
      FROM ${database}.test_results FINAL
      WHERE $__timeFilter(event_time)
      GROUP BY agent
      HAVING countIf(test_success IS NOT NULL) >= ${t.testMinEvaluated}`,
    threshold: { type: 'lt', value: t.testPassRateBelow },
    summary:
      'Agent {{ $labels.agent }} passed {{ humanizePercentage $values.B.Value }} of its automated tests in the last ' +
      `${t.testWindowHours} hours. Open the Agent tests dashboard, read the failure reasons of the failing tests, ` +
      "and review the agent's latest prompt or tool changes.",
    description: `Pass rate below ${t.testPassRateBelow} with at least ${t.testMinEvaluated} evaluated tests (dashboards/src/grafana-alert-rules.ts). Dashboard: /d/voice-agent-tests`,
    severity: 'warning',
  },
  {
    uid: 'voice-campaign-failures-clickhouse',
    title: 'Campaign calls failing (ClickHouse)',
    windowSeconds: t.campaignWindowMinutes * 60,
    rawSql: `
      SELECT ifNull(any(campaign_name), campaign_id) AS campaign, campaign_id,
        countIf(room_failed OR error_message != '') / count() AS failure_share
      FROM ${database}.campaign_items FINAL
      WHERE $__timeFilter(event_time)
      GROUP BY campaign_id
      HAVING count() >= ${t.campaignMinCalls}`,
    threshold: { type: 'gt', value: t.campaignFailureShareAbove },
    summary:
      'Campaign {{ $labels.campaign }}: {{ humanizePercentage $values.B.Value }} of its calls in the last ' +
      `${t.campaignWindowMinutes} minutes failed or reported an error. Check the Campaigns dashboard for the errors, ` +
      'the telecom provider and the numbers called; pause the campaign if the cause is on your side.',
    description: `Share above ${t.campaignFailureShareAbove} with at least ${t.campaignMinCalls} calls (dashboards/src/grafana-alert-rules.ts). Dashboard: /d/voice-campaigns`,
    severity: 'warning',
  },
  {
    uid: 'voice-campaign-cost-clickhouse',
    title: 'Campaign cost per completed call high (ClickHouse)',
    windowSeconds: t.campaignCostWindowHours * 3600,
    rawSql: `
      SELECT ifNull(any(campaign_name), campaign_id) AS campaign, campaign_id,
        sum(cost) / countIf(status = 'Completed' AND NOT unpriced) AS cost_per_completed_call
      FROM ${database}.conversation_costs
      WHERE $__timeFilter(event_time)
        AND campaign_id IS NOT NULL
      GROUP BY campaign_id
      HAVING countIf(status = 'Completed' AND NOT unpriced) >= ${t.campaignCostMinCompleted}`,
    threshold: { type: 'gt', value: t.campaignCostPerCompletedCallAbove },
    summary:
      'Campaign {{ $labels.campaign }}: a completed call cost {{ humanize $values.B.Value }} on average over the last ' +
      `${t.campaignCostWindowHours} hours (failed and unanswered calls included in the cost). Open the Campaigns dashboard ` +
      '(row Cost): more failed rooms, longer calls or a price change? The cookbook query "Cost per completed call, per campaign" splits it.',
    description:
      `Cost per completed call above ${t.campaignCostPerCompletedCallAbove} (the prices' currency) with at least ` +
      `${t.campaignCostMinCompleted} priced completed calls in ${t.campaignCostWindowHours} h ` +
      '(campaignCostPerCompletedCallAbove, campaignCostMinCompleted in dashboards/src/grafana-alert-rules.ts). Dashboard: /d/voice-campaigns',
    severity: 'warning',
  },
  {
    uid: 'voice-agent-regression-clickhouse',
    title: 'Agent latency worse than its own past (ClickHouse)',
    windowSeconds: t.regressionBaselineWeeks * 7 * 86400 + t.regressionRecentMinutes * 60,
    rawSql: latencyRegressionSql(regressionSettings),
    threshold: { type: 'gt', value: 0 },
    figures: t.regressionQuantiles.map((quantile, index) => ({
      refId: regressionFigureRefIds[index]!,
      rawSql: latencyRegressionSql(regressionSettings, { kind: 'after', quantile }),
    })),
    summary:
      `Agent {{ $labels.agent }}: its median or p95 end-to-end latency rose by more than ${t.regressionMinEffectSeconds * 1000} ms ` +
      '{{ if $labels.version_change }}since its instructions changed ({{ $labels.version_change }}){{ else }}' +
      `over the same hour of the week in the previous ${t.regressionBaselineWeeks} weeks{{ end }}: ` +
      'at least {{ humanizePercentage $values.B.Value }} more of its turns than before are that much slower. ' +
      `After: ${t.regressionQuantiles.map((q, index) => `p${Math.round(q * 100)} {{ humanizeDuration $values.${regressionFigureRefIds[index]}.Value }}`).join(', ')} ` +
      '{{ if $labels.version_change }}since the change{{ else }}' +
      `in the last ${t.regressionRecentMinutes} minutes{{ end }}. ` +
      'List the change with its figures before and after (`voice-analytics versions --agent`), then roll it back or open the Voice latency dashboard (row Agent changes).',
    description:
      `For the median and p95: the Wilson lower bound (z = ${t.regressionZ}) of the share of recent turns slower than the past quantile's upper bound + ` +
      `${t.regressionMinEffectSeconds} s, less the share the quantile leaves above it; fires above 0. At least ${t.regressionMinRecentCalls} calls in the last ` +
      `${t.regressionRecentMinutes} min and ${t.regressionMinPastCalls} in the past (regression* in dashboards/src/grafana-alert-rules.ts; docs/alerting.md). Dashboard: /d/voice-latency`,
    severity: 'warning',
  },
  {
    uid: 'voice-agent-dead-air-clickhouse',
    title: 'Agent calls with dead air (ClickHouse)',
    windowSeconds: t.qualityWindowMinutes * 60,
    rawSql: `
      SELECT ifNull(agent_name, agent_id) AS agent, ${qualityFigures.deadAirShare} AS dead_air_share
      FROM ${agentSpeechCalls()}
      HAVING count() >= ${t.qualityMinCalls}`,
    threshold: { type: 'gt', value: t.deadAirShareAbove },
    summary:
      'Agent {{ $labels.agent }}: {{ humanizePercentage $values.B.Value }} of its calls in the last ' +
      `${t.qualityWindowMinutes} minutes had a silence longer than the dead-air threshold. Open the Conversation quality ` +
      'dashboard ("Longest silences") and listen to a few calls: a slow tool, an LLM or TTS provider stalling, or a prompt that waits?',
    description:
      `Share of calls with dead air above ${t.deadAirShareAbove} with at least ${t.qualityMinCalls} calls with speech in ` +
      `${t.qualityWindowMinutes} min (deadAirShareAbove, qualityMinCalls in dashboards/src/grafana-alert-rules.ts). Dashboard: /d/voice-conversation-quality`,
    severity: 'warning',
  },
  {
    uid: 'voice-agent-barge-ins-clickhouse',
    title: 'Agent barge-in rate high (ClickHouse)',
    windowSeconds: t.qualityWindowMinutes * 60,
    rawSql: `
      SELECT ifNull(agent_name, agent_id) AS agent,
        ${qualityFigures.bargeInsPerAgentTurn} AS barge_ins_per_agent_turn
      FROM ${agentSpeechCalls('agent_turn_count > 0')}
      HAVING count() >= ${t.qualityMinCalls}`,
    threshold: { type: 'gt', value: t.bargeInsPerAgentTurnAbove },
    summary:
      'Agent {{ $labels.agent }}: callers cut in on {{ humanize $values.B.Value }} of its turns in the last ' +
      `${t.qualityWindowMinutes} minutes. Open the Conversation quality dashboard: long answers, a slow first word, or ` +
      'end-of-turn detection cutting the caller off? Review the latest prompt or turn-detection change.',
    description:
      `Caller barge-ins per agent turn above ${t.bargeInsPerAgentTurnAbove} with at least ${t.qualityMinCalls} calls with speech in ` +
      `${t.qualityWindowMinutes} min (bargeInsPerAgentTurnAbove, qualityMinCalls in dashboards/src/grafana-alert-rules.ts). Dashboard: /d/voice-conversation-quality`,
    severity: 'warning',
  },
  latencyRule(
    {
      uid: 'voice-agent-latency-pct-clickhouse',
      title: `Agent ${percentile} latency high (ClickHouse)`,
      label: 'agent',
      noun: 'Agent',
    },
    `
      SELECT ifNull(agent_name, agent_id) AS agent, ${latencyQuantile('e2e_latency')}
      FROM ${database}.conversation_items FINAL
      WHERE $__timeFilter(event_time)
        AND e2e_latency IS NOT NULL
        AND empty(metric_flags)
      GROUP BY agent
      HAVING count() >= ${t.latencyMinTurns}`,
    'Open the Voice latency dashboard ("Latency and failures by what you can change") to see whether one campaign, ' +
      "telecom provider or test run is slow, then check the agent's LLM and TTS providers.",
  ),
  latencyRule(
    {
      uid: 'voice-campaign-latency-pct-clickhouse',
      title: `Campaign ${percentile} latency high (ClickHouse)`,
      label: 'campaign',
      noun: 'Campaign',
    },
    `
      SELECT ifNull(any(conversation.campaign_name), conversation.campaign_id) AS campaign,
        conversation.campaign_id AS campaign_id, ${latencyQuantile('turn.e2e_latency')}
      FROM ${turnsWithCall}
        AND conversation.campaign_id IS NOT NULL
      GROUP BY conversation.campaign_id
      HAVING count() >= ${t.latencyMinTurns}`,
    'Open the Campaigns dashboard ("Latency per campaign and telecom provider") and check the telecom provider and agent this campaign calls with.',
  ),
  latencyRule(
    {
      uid: 'voice-telecom-latency-pct-clickhouse',
      title: `Telecom provider ${percentile} latency high (ClickHouse)`,
      label: 'telecom_provider',
      noun: 'Telecom provider',
    },
    `
      SELECT conversation.telecom_provider AS telecom_provider, ${latencyQuantile('turn.e2e_latency')}
      FROM ${turnsWithCall}
        AND conversation.telecom_provider IS NOT NULL
      GROUP BY conversation.telecom_provider
      HAVING count() >= ${t.latencyMinTurns}`,
    "Compare providers on the Voice latency dashboard, and check this provider's status and the region of its numbers.",
  ),
]

function buildRule(rule: ClickHouseRule): alerting.Rule {
  const builder = new RuleBuilder(rule.title)
    .uid(rule.uid)
    .folderUID(alertFolder)
    .ruleGroup(alertGroup)
    .withQuery(
      new QueryBuilder('A')
        .datasourceUid(clickhouseDatasource.uid!)
        .relativeTimeRange({ from: rule.windowSeconds, to: 0 })
        .model(tableSql(rule.rawSql, 'A')),
    )
    .withQuery(
      new QueryBuilder('B')
        .datasourceUid('__expr__')
        .model(new TypeReduceBuilder().refId('B').expression('A').reducer('last')),
    )
    .withQuery(
      new QueryBuilder('C').datasourceUid('__expr__').model(
        new TypeThresholdBuilder()
          .refId('C')
          .expression('B')
          .conditions([{ evaluator: { type: rule.threshold.type, params: [rule.threshold.value] } }]),
      ),
    )
  for (const figure of rule.figures ?? [])
    builder.withQuery(
      new QueryBuilder(figure.refId)
        .datasourceUid(clickhouseDatasource.uid!)
        .relativeTimeRange({ from: rule.windowSeconds, to: 0 })
        .model(tableSql(figure.rawSql, figure.refId)),
    )
  return (
    builder
      .condition('C')
      .forDuration('0s')
      .noDataState('OK')
      .execErrState('Error')
      .labels({ severity: rule.severity })
      // Each rule's runbook: its section of docs/alerting.md, headed by the rule's uid.
      .annotations({
        summary: rule.summary,
        description: rule.description,
        runbook_url: `docs/alerting.md#${rule.uid}`,
      })
      .build()
  )
}

/** The Grafana file-provisioning form of the rules (provisioning/alerting/*.yaml, apiVersion 1). */
export function alertRulesProvisioning() {
  return {
    apiVersion: 1,
    groups: [
      {
        orgId: 1,
        name: alertGroup,
        folder: alertFolder,
        interval: '1m',
        rules: rules.map(buildRule).map((rule) => ({
          uid: rule.uid,
          title: rule.title,
          condition: rule.condition,
          data: rule.data.map((query) => ({
            refId: query.refId,
            relativeTimeRange: query.relativeTimeRange ?? { from: 0, to: 0 },
            datasourceUid: query.datasourceUid,
            model: withoutFunctions(query.model),
          })),
          noDataState: rule.noDataState,
          execErrState: rule.execErrState,
          for: rule.for,
          annotations: rule.annotations,
          labels: rule.labels,
          isPaused: false,
        })),
      },
    ],
  }
}

/** The SDK's models carry a marker method; JSON and YAML have no functions. */
function withoutFunctions(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value))
}
