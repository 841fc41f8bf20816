import { DashboardBuilder, RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard'
import { variables } from './clickhouse-variables.ts'
import { tableSql, timeseriesSql } from './grafana-queries.ts'
import { stat, table, timeseries } from './panels.ts'
import {
  longestSilences,
  qualityBy,
  qualityFigures,
  qualityOverTime,
  qualityPerAgent,
  qualityTestVsProduction,
  speechCalls,
} from './quality-panel-sql.ts'
import { versionChangeAnnotation } from './version-changes-sql.ts'

// Conversation quality (#31): how the calls went, not how fast — who talked, silences, barge-ins and
// cut-ins, from the turn-taking columns of conversations (docs/metrics.md). The breakdowns read one
// row per conversation.
const f = qualityFigures

export function conversationQualityDashboard() {
  return new DashboardBuilder('Conversation quality')
    .uid('voice-conversation-quality')
    .description('How the calls went: talk time, silences, barge-ins and cut-ins per agent, from ClickHouse')
    .tags(['voice-analytics', 'quality'])
    .time({ from: 'now-24h', to: 'now' })
    .refresh('5m')
    .readonly()
    .withVariable(variables.source())
    .withVariable(variables.agent())
    .withVariable(variables.campaign())
    .withVariable(variables.telecom_provider())
    .annotation(versionChangeAnnotation())
    .withRow(new RowBuilder('Overview'))
    .withPanel(
      stat('Calls with speech', 'Conversations with measurable speaking times.', [
        tableSql(`SELECT count() AS calls FROM ${speechCalls}`),
      ]),
    )
    .withPanel(
      stat(
        'Agent talk ratio',
        'Agent talk time / (agent + caller talk time), averaged over calls.',
        [tableSql(`SELECT ${f.talkRatio} AS talk_ratio FROM ${speechCalls}`)],
        'percentunit',
      ),
    )
    .withPanel(
      stat(
        'Calls with dead air',
        'Share of calls with a silence longer than the dead-air threshold (DEAD_AIR_SECONDS).',
        [tableSql(`SELECT ${f.deadAirShare} AS dead_air_share FROM ${speechCalls}`)],
        'percentunit',
      ),
    )
    .withPanel(
      stat('Barge-ins per agent turn', 'Caller speech starting while the agent speaks, per agent turn.', [
        tableSql(`SELECT ${f.bargeInsPerAgentTurn} AS barge_ins_per_agent_turn FROM ${speechCalls}`),
      ]),
    )
    .withPanel(
      stat(
        'Median response gap',
        "Caller stops -> agent starts, the median of the calls' medians.",
        [tableSql(`SELECT ${f.responseGapMedianMs} AS response_gap_ms FROM ${speechCalls}`)],
        'ms',
      ),
    )
    .withPanel(
      stat(
        'Median first word',
        "agent_joined_at (else start_time) to the agent's first speech.",
        [tableSql(`SELECT ${f.firstWordMedianMs} AS first_word_ms FROM ${speechCalls}`)],
        'ms',
      ),
    )
    .withRow(new RowBuilder('Per agent'))
    .withPanel(
      table(
        'Quality per agent',
        'Per agent: calls, talk ratio, share of calls with dead air, p95 of the longest silence (s), barge-ins and cut-ins per agent turn, share of barge-ins the agent yielded to, median response gap and first word (ms).',
        [tableSql(qualityPerAgent)],
      ),
    )
    .withPanel(
      timeseries(
        'Calls with dead air, per agent',
        'Share of the calls of each agent with a silence longer than the dead-air threshold.',
        [timeseriesSql(qualityOverTime)],
        { unit: 'percentunit' },
      ),
    )
    .withRow(new RowBuilder('By what you can change'))
    .withPanel(
      table('Quality per campaign', 'The same figures per campaign (calls outside a campaign: none).', [
        tableSql(qualityBy("ifNull(campaign_name, ifNull(campaign_id, 'none'))", 'campaign')),
      ]),
    )
    .withPanel(
      table('Quality per telecom provider', 'The same figures per telecom provider.', [
        tableSql(qualityBy("ifNull(telecom_provider, 'none')", 'telecom_provider')),
      ]),
    )
    .withPanel(
      table('Test vs production', 'Test conversations (of a test run or a test) against production ones.', [
        tableSql(qualityTestVsProduction),
      ]),
    )
    .withRow(new RowBuilder('Where to listen'))
    .withPanel(
      table('Longest silences', 'The 50 calls with the longest silence, with their recording.', [
        tableSql(longestSilences),
      ]),
    )
}
