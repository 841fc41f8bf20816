import { includeFlaggedDefault, includeFlaggedVariable } from '../../dashboards/src/clickhouse-filters.ts'
import { campaignCostsTable, totalCost } from '../../dashboards/src/cost-panel-sql.ts'
import { expandPanelSql } from '../../dashboards/src/grafana-macros.ts'
import { conversationOrigins } from '../../dashboards/src/origin-panel-sql.ts'
import { sql } from '../../dashboards/src/panel-sql.ts'
import { qualityPerAgent } from '../../dashboards/src/quality-panel-sql.ts'
import {
  callsPerCampaign,
  campaignFailureRates,
  campaignsTable,
  conversationsCount,
  failedRoomsCount,
  passRateOverTime,
  percentilesOverTime,
  slowestTurns,
} from '../../dashboards/src/shared-panel-sql.ts'
import { versionChangesTable } from '../../dashboards/src/version-changes-sql.ts'

// The fixed, named queries of the overview page: the Grafana panels' own SQL (shared-panel-sql.ts,
// cost-panel-sql.ts),
// with the macros expanded as Grafana and the ClickHouse plugin would for "All" selected, flagged
// values left out (the dashboards' default) and the last day. The browser names a query; it never sends SQL. Pure: the SQL is text, tested as such.
export type OverviewKind = 'chart' | 'stat' | 'table'

export interface OverviewQuery {
  title: string
  kind: OverviewKind
  /** What the values mean, shown under the title. */
  unit: string
  rawSql: string
}

export const overviewQueries = {
  conversations: { title: 'Conversations', kind: 'stat', unit: 'last 24 h', rawSql: conversationsCount },
  'failed-rooms': { title: 'Failed rooms', kind: 'stat', unit: 'last 24 h', rawSql: failedRoomsCount },
  cost: { title: 'Cost', kind: 'stat', unit: 'last 24 h, priced calls only', rawSql: totalCost },
  'e2e-latency': {
    title: 'End-to-end latency per agent (p50, p95, p99)',
    kind: 'chart',
    unit: 'ms; p95 shown, click p50 or p99 in the legend to add them',
    rawSql: percentilesOverTime('e2e_latency'),
  },
  'calls-per-campaign': {
    title: 'Calls per campaign',
    kind: 'chart',
    unit: 'calls',
    rawSql: callsPerCampaign,
  },
  'campaign-failures': {
    title: 'Failed rooms and errors per campaign',
    kind: 'chart',
    unit: 'share of calls',
    rawSql: campaignFailureRates,
  },
  'test-pass-rate': {
    title: 'Test pass rate',
    kind: 'chart',
    unit: 'passed / evaluated',
    rawSql: passRateOverTime,
  },
  campaigns: { title: 'Campaigns', kind: 'table', unit: '', rawSql: campaignsTable },
  'campaign-costs': {
    title: 'Cost per campaign',
    kind: 'table',
    unit: 'unpriced calls are left out of the costs and counted',
    rawSql: campaignCostsTable,
  },
  'quality-per-agent': {
    title: 'Conversation quality per agent',
    kind: 'table',
    unit: 'talk ratio, share of calls with dead air, barge-ins and cut-ins per agent turn; ms',
    rawSql: qualityPerAgent,
  },
  'agent-changes': {
    title: 'Agent changes and their effect',
    kind: 'table',
    unit: 'each change of instructions, figures of the calls before and after it in the last day; voice-analytics versions gives intervals',
    rawSql: versionChangesTable,
  },
  sources: {
    title: 'Where conversations come from',
    kind: 'table',
    unit: 'per source: webhook, or assembled from OpenTelemetry spans of an open framework (LiveKit Agents, Pipecat); ms',
    rawSql: conversationOrigins,
  },
  'slowest-turns': {
    title: 'Slowest turns, with what was said',
    kind: 'table',
    unit: 'ms',
    rawSql: slowestTurns,
  },
} as const satisfies Record<string, OverviewQuery>

export type OverviewQueryName = keyof typeof overviewQueries

export const overviewRangeHours = 24
/** Grafana's $__interval for a day on a panel of about 150 points. */
export const overviewIntervalSeconds = 600

export function isOverviewQueryName(name: string): name is OverviewQueryName {
  return Object.hasOwn(overviewQueries, name)
}

/** The window every query and chart of the page shows: the last 24 hours up to `now`. */
export function overviewWindow(now: Date): { from: Date; to: Date } {
  return { from: new Date(now.getTime() - overviewRangeHours * 3600_000), to: now }
}

/** The dashboards' defaults: every filter on All, flagged values left out of latencies. */
const defaultVariables = {
  source: '$__all',
  agent: '$__all',
  campaign: '$__all',
  telecom_provider: '$__all',
  test_run: '$__all',
  [includeFlaggedVariable]: [includeFlaggedDefault],
} as const

/**
 * The SQL ClickHouse runs for a named query at `now`. Charts get their time column as Unix
 * seconds (uPlot's x values), without touching the panel's SQL.
 */
export function overviewSql(name: OverviewQueryName, now: Date): string {
  const query: OverviewQuery = overviewQueries[name]
  const expanded = expandPanelSql(
    sql(query.rawSql),
    {
      ...overviewWindow(now),
      intervalSeconds: overviewIntervalSeconds,
      variables: defaultVariables,
    },
    {},
  )
  return query.kind === 'chart'
    ? `SELECT * REPLACE (toUnixTimestamp(time) AS time)\nFROM (\n${expanded}\n)\nORDER BY time`
    : expanded
}
