import { DashboardBuilder, RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard'
import { filters, variables } from './clickhouse-variables.ts'
import {
  campaignCostPerCompletedCall,
  campaignCostsTable,
  campaignUnpricedCalls,
  costPerCampaignOverTime,
  costPerCompletedCallOverTime,
} from './cost-panel-sql.ts'
import { continuationMark, tableSql, timeseriesSql } from './grafana-queries.ts'
import {
  conversationLatencyFrom,
  perCampaignTable,
  perTelecomProviderTable,
  turnsHistogram,
  turnsQuantileMs,
} from './latency-by-choice.ts'
import { histogramCount } from './latency-histogram.ts'
import { pie, stat, table, timeseries } from './panels.ts'
import {
  callsPerCampaign,
  campaignCallsFrom,
  campaignFailureRates,
  campaignsTable,
} from './shared-panel-sql.ts'

// Campaigns: outbound calls per campaign (campaign_items, one row per campaign call), their
// status, durations, failed rooms and errors. A call "failed" when its room failed; it "had an
// error" when the platform sent an error_message.
const from = campaignCallsFrom

/** Campaign calls in `conversations` (for the latency rows, which join their turns). */
const campaignCalls = `${filters.conversations}\n${continuationMark}  AND conversation.campaign_id IS NOT NULL`

export function campaignsDashboard() {
  return new DashboardBuilder('Campaigns')
    .uid('voice-campaigns')
    .description('Outbound campaign calls from ClickHouse: volume, status, durations, failures')
    .tags(['voice-analytics', 'campaigns'])
    .time({ from: 'now-7d', to: 'now' })
    .refresh('5m')
    .readonly()
    .withVariable(variables.source())
    .withVariable(variables.campaign())
    .withVariable(variables.agent())
    .withVariable(variables.telecom_provider())
    .withVariable(variables.include_flagged())
    .withRow(new RowBuilder('Overview'))
    .withPanel(
      stat('Campaign calls', 'Calls of the selected campaigns in range.', [
        tableSql(`SELECT count() AS calls FROM ${from}`),
      ]),
    )
    .withPanel(
      stat('Campaign items', 'Distinct campaign items called.', [
        tableSql(`SELECT uniqExact(campaign_item_id) AS campaign_items FROM ${from}`),
      ]),
    )
    .withPanel(
      stat(
        'Failed rooms',
        'Share of calls whose room failed.',
        [tableSql(`SELECT countIf(room_failed) / count() AS failed_share FROM ${from}`)],
        'percentunit',
      ),
    )
    .withPanel(
      stat(
        'Calls with an error',
        'Share of calls with an error_message.',
        [tableSql(`SELECT countIf(error_message != '') / count() AS error_share FROM ${from}`)],
        'percentunit',
      ),
    )
    .withPanel(
      stat(
        'Average duration',
        'Mean call duration.',
        [tableSql(`SELECT avg(duration_seconds) AS avg_duration FROM ${from}`)],
        's',
      ),
    )
    .withPanel(
      stat(
        'Total talk time',
        'Sum of call durations.',
        [tableSql(`SELECT sum(duration_seconds) AS total_duration FROM ${from}`)],
        's',
      ),
    )
    .withRow(new RowBuilder('Volume and status'))
    .withPanel(
      timeseries(
        'Calls per campaign',
        'Campaign calls per interval, stacked by campaign.',
        [timeseriesSql(callsPerCampaign)],
        { stacked: true, bars: true, width: 16 },
      ),
    )
    .withPanel(
      pie('Status breakdown', 'Calls by the platform status.', [
        tableSql(`
          SELECT ifNull(status, 'unknown') AS status, count() AS calls
          FROM ${from}
          GROUP BY status
          ORDER BY calls DESC`),
      ]),
    )
    .withPanel(
      timeseries(
        'Status over time',
        'Calls per interval by status.',
        [
          timeseriesSql(`
          SELECT $__timeInterval(event_time) AS time, ifNull(status, 'unknown') AS status, count() AS calls
          FROM ${from}
          GROUP BY time, status
          ORDER BY time, status`),
        ],
        { stacked: true, bars: true },
      ),
    )
    .withPanel(
      timeseries(
        'Failure and error rates',
        'Per campaign: share of calls whose room failed, and share with an error_message.',
        [timeseriesSql(campaignFailureRates)],
        { unit: 'percentunit' },
      ),
    )
    .withRow(new RowBuilder('Durations'))
    .withPanel(
      timeseries(
        'Call duration per campaign',
        'Median and p95 call duration per campaign.',
        [
          timeseriesSql(`
          SELECT
            $__timeInterval(event_time) AS time,
            ifNull(campaign_name, campaign_id) AS campaign,
            quantile(0.5)(duration_seconds) AS p50,
            quantile(0.95)(duration_seconds) AS p95
          FROM ${from}
          GROUP BY time, campaign
          ORDER BY time, campaign`),
        ],
        { unit: 's', width: 24 },
      ),
    )
    .withRow(new RowBuilder('Latency per campaign and telecom provider'))
    .withPanel(perCampaignTable(filters.conversations))
    .withPanel(perTelecomProviderTable(campaignCalls))
    .withPanel(
      timeseries(
        'p90 end-to-end latency per campaign',
        'p90 of end-to-end latency of the agent turns per interval, per campaign; milliseconds.',
        [
          timeseriesSql(`
          SELECT
            $__timeInterval(event_time) AS time,
            ifNull(conversation.campaign_name, conversation.campaign_id) AS campaign,
            ${turnsQuantileMs(0.9)} AS p90
          FROM ${conversationLatencyFrom(campaignCalls)}
          GROUP BY time, campaign
          HAVING ${histogramCount(turnsHistogram())} > 0
          ORDER BY time, campaign`),
        ],
        { unit: 'ms', width: 24 },
      ),
    )
    .withRow(new RowBuilder('Cost'))
    .withPanel(
      stat(
        'Cost per completed call',
        'What the priced campaign calls cost, divided by the priced completed calls (docs/costs.md).',
        [tableSql(campaignCostPerCompletedCall)],
        'short',
        6,
      ),
    )
    .withPanel(
      stat(
        'Unpriced calls',
        'Campaign calls a price is missing for (provider, component or time): left out of every cost, never counted as free. ' +
          'Which prices: the cookbook query "Unpriced calls and the prices they lack".',
        [tableSql(campaignUnpricedCalls)],
        'short',
        6,
      ),
    )
    .withPanel(
      timeseries(
        'Cost per campaign',
        'What the priced calls of each campaign cost per interval.',
        [timeseriesSql(costPerCampaignOverTime)],
        { stacked: true, bars: true, width: 12 },
      ),
    )
    .withPanel(
      timeseries(
        'Cost per completed call per campaign',
        'Per interval: the cost of the priced calls divided by the priced completed ones.',
        [timeseriesSql(costPerCompletedCallOverTime)],
        { width: 24 },
      ),
    )
    .withPanel(
      table(
        'Campaign costs',
        'Per campaign: cost, cost per completed call, its parts, what failed rooms cost, and the calls left unpriced.',
        [tableSql(campaignCostsTable)],
      ),
    )
    .withRow(new RowBuilder('Campaigns and items'))
    .withPanel(
      table('Campaigns', 'One row per campaign: calls, items, outcomes and durations in range.', [
        tableSql(campaignsTable),
      ]),
    )
    .withPanel(
      table(
        'Campaign items',
        'The latest campaign calls: item, session, status and what went wrong.',
        [
          tableSql(`
          SELECT
            event_time,
            ifNull(campaign_name, campaign_id) AS campaign,
            campaign_item_id,
            session_id,
            ifNull(agent_name, agent_id) AS agent,
            ifNull(status, 'unknown') AS status,
            room_failed,
            duration_seconds,
            ifNull(telecom_provider, 'none') AS telecom_provider,
            coalesce(room_error, error_message, '') AS error
          FROM ${from}
          ORDER BY event_time DESC
          LIMIT 200`),
        ],
        24,
        12,
      ),
    )
}
