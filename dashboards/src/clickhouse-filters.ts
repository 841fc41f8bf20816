import { continuationMark, database } from './panel-sql.ts'

// The WHERE conditions that apply the ClickHouse dashboards' variables (clickhouse-variables.ts),
// apart from the Grafana SDK so the overview page can use the same SQL (shared-panel-sql.ts).
// A condition is wrapped in the plugin's $__conditionalAll(condition, $variable), which becomes
// 1=1 when All (or nothing) is selected; ${name:singlequote} renders the selection as 'a','b'.
export type VariableName = 'source' | 'agent' | 'campaign' | 'telecom_provider' | 'test_run'

const when = (variable: VariableName, condition: string) => `$__conditionalAll(${condition}, $${variable})`
const selection = (variable: VariableName) => `\${${variable}:singlequote}`
/** Conversations matching a condition on the conversations table, for tables without its columns. */
const sessionsWhere = (condition: string) =>
  `session_id IN (SELECT session_id FROM ${database}.conversations WHERE ${condition})`

const conditions = {
  source: when('source', `source IN (${selection('source')})`),
  agent: when('agent', `agent_id IN (${selection('agent')})`),
  campaign: when('campaign', `campaign_id IN (${selection('campaign')})`),
  campaignViaConversations: when('campaign', sessionsWhere(`campaign_id IN (${selection('campaign')})`)),
  telecomProvider: when(
    'telecom_provider',
    `ifNull(telecom_provider, 'none') IN (${selection('telecom_provider')})`,
  ),
  telecomProviderViaConversations: when(
    'telecom_provider',
    sessionsWhere(`ifNull(telecom_provider, 'none') IN (${selection('telecom_provider')})`),
  ),
  testRun: when('test_run', `test_run_id IN (${selection('test_run')})`),
}

const and = (...parts: string[]) => parts.join(`\n${continuationMark}  AND `)

/** WHERE conditions (after the time filter) per table, for the variables of its dashboard. */
export const filters = {
  /** conversations, campaign_items: every column is there. */
  conversations: and(conditions.source, conditions.agent, conditions.campaign, conditions.telecomProvider),
  campaignItems: and(conditions.source, conditions.agent, conditions.campaign, conditions.telecomProvider),
  /** conversation_items: campaign_id is there, the provider only on the conversation. */
  items: and(
    conditions.source,
    conditions.agent,
    conditions.campaign,
    conditions.telecomProviderViaConversations,
  ),
  /** agent_latency_minute: agent and source only; campaign and provider through the conversation. */
  latencyRollup: and(
    conditions.source,
    conditions.agent,
    conditions.campaignViaConversations,
    conditions.telecomProviderViaConversations,
  ),
  /** agent_latency_hour: agent and source; no campaign or provider (latency-rollup-rows.ts). */
  latencyHourRollup: and(conditions.source, conditions.agent),
  testResults: and(conditions.source, conditions.agent, conditions.testRun),
}

/** True when no campaign and no telecom provider is chosen (All): the hour rollup has no such column. */
export const noBreakdownChosen = `($__conditionalAll(0, $campaign)) AND ($__conditionalAll(0, $telecom_provider))`

// The "Flagged values" variable (include_flagged, one value): 0, the default, leaves out the
// values of history items the metric-quality rules flagged (docs/metric-quality.md), 1 takes them
// in. Raw format: the value is a number in the SQL, and the constant condition costs nothing.
export const includeFlaggedVariable = 'include_flagged'
/** The variable's default (left out): the overview page uses it too. */
export const includeFlaggedDefault = '0'
const includeFlagged = `\${${includeFlaggedVariable}:raw}`

/**
 * A column of the latency rollup (agent_latency_minute) as the variable chooses: `<metric>_<part>`
 * (every value) or `<metric>_unflagged_<part>` (values of unflagged items; migration 0006). Its
 * percentiles: latency-histogram.ts.
 */
export const rollupColumn = (metric: string, part: 'count' | 'sum') =>
  `if(${includeFlagged} = 1, ${metric}_${part}, ${metric}_unflagged_${part})`

/** The condition on conversation_items (`alias`: its table alias and a dot) that applies the variable. */
export const itemsAsFlaggedChosen = (alias = '') => `(${includeFlagged} = 1 OR empty(${alias}metric_flags))`
