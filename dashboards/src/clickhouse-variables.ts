import {
  QueryVariableBuilder,
  VariableRefresh,
  VariableSort,
} from '@grafana/grafana-foundation-sdk/dashboard'
import { clickhouseDatasource, continuationMark, database, sql } from './grafana-queries.ts'

// The dashboard variables of the ClickHouse dashboards, and the WHERE conditions that apply them.
// Every variable is multi-value with "All"; a condition is wrapped in the plugin's
// $__conditionalAll(condition, $variable), which becomes 1=1 when All (or nothing) is selected,
// so "All" costs no IN list. ${name:singlequote} renders the selection as 'a','b'.
export type VariableName = 'source' | 'agent' | 'campaign' | 'telecom_provider' | 'test_run'

/** A query variable whose SQL returns (value) or (value, label), within the dashboard's time range. */
function clickhouseVariable(name: VariableName, label: string, rawSql: string) {
  const query = sql(rawSql)
  return new QueryVariableBuilder(name)
    .label(label)
    .datasource(clickhouseDatasource)
    .query({ refId: `variable-${name}`, queryType: 'sql', rawSql: query })
    .definition(query)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc)
    .multi(true)
    .includeAll(true)
    .current({ selected: true, text: ['All'], value: ['$__all'] })
}

export const variables = {
  source: () =>
    clickhouseVariable(
      'source',
      'Source',
      `
      SELECT DISTINCT source
      FROM ${database}.conversations
      WHERE $__timeFilter(event_time)
      ORDER BY source`,
    ),
  agent: () =>
    clickhouseVariable(
      'agent',
      'Agent',
      `
      SELECT agent_id, any(ifNull(agent_name, agent_id)) AS agent
      FROM ${database}.conversations
      WHERE $__timeFilter(event_time)
      GROUP BY agent_id
      ORDER BY agent`,
    ),
  campaign: () =>
    clickhouseVariable(
      'campaign',
      'Campaign',
      `
      SELECT campaign_id, any(ifNull(campaign_name, campaign_id)) AS campaign
      FROM ${database}.campaign_items
      WHERE $__timeFilter(event_time)
      GROUP BY campaign_id
      ORDER BY campaign`,
    ),
  telecom_provider: () =>
    clickhouseVariable(
      'telecom_provider',
      'Telecom provider',
      `
      SELECT DISTINCT ifNull(telecom_provider, 'none') AS telecom_provider
      FROM ${database}.conversations
      WHERE $__timeFilter(event_time)
      ORDER BY telecom_provider`,
    ),
  test_run: () =>
    clickhouseVariable(
      'test_run',
      'Test run',
      `
      SELECT test_run_id, concat(formatDateTime(min(event_time), '%Y-%m-%d %H:%i'), '  ', test_run_id) AS test_run
      FROM ${database}.test_results
      WHERE $__timeFilter(event_time)
      GROUP BY test_run_id
      ORDER BY test_run DESC`,
    ),
}

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
  testResults: and(conditions.source, conditions.agent, conditions.testRun),
}
