import { filters } from './clickhouse-filters.ts'
import { continuationMark, database } from './panel-sql.ts'

// The SQL of the cost panels (#25): the Campaigns dashboard's cost row, cost per agent on the Voice
// latency dashboard, and the overview page's cost tile and cost-per-campaign table (pure text, like
// shared-panel-sql.ts, so the overview can use it). Costs come from the view conversation_costs
// (migration 0011): computed at query time from the prices valid at each call's time. A call a
// price is missing for has a NULL cost, so sums leave it out, and every panel that shows money
// shows beside it how many calls were left out (unpriced_calls), never a zero in their place.
// Sums are never named `cost`: ClickHouse would read the column inside them as the alias.

/** The conversations in range with their costs, with the dashboard's filters. */
export const costsFrom = `${database}.conversation_costs
${continuationMark}WHERE $__timeFilter(event_time)
${continuationMark}  AND ${filters.conversations}`

/** Campaign calls only. */
const campaignCostsFrom = `${costsFrom}
${continuationMark}  AND campaign_id IS NOT NULL`

/** Cost divided by the priced completed calls: failed and unanswered calls are part of the price of one. */
const perCompletedCall = `sum(cost) / nullIf(countIf(status = 'Completed' AND NOT unpriced), 0)`

export const totalCost = `
          SELECT round(ifNull(sum(cost), 0), 2) AS total_cost
          FROM ${costsFrom}`

export const unpricedCalls = `
          SELECT countIf(unpriced) AS unpriced_calls
          FROM ${costsFrom}`

export const campaignUnpricedCalls = `
          SELECT countIf(unpriced) AS unpriced_calls
          FROM ${campaignCostsFrom}`

export const campaignCostPerCompletedCall = `
          SELECT ifNull(round(${perCompletedCall}, 4), 0) AS cost_per_completed_call
          FROM ${campaignCostsFrom}`

export const costPerCampaignOverTime = `
          SELECT $__timeInterval(event_time) AS time, ifNull(campaign_name, campaign_id) AS campaign, sum(cost) AS total_cost
          FROM ${campaignCostsFrom}
          GROUP BY time, campaign
          ORDER BY time, campaign`

export const costPerCompletedCallOverTime = `
          SELECT
            $__timeInterval(event_time) AS time,
            ifNull(campaign_name, campaign_id) AS campaign,
            ${perCompletedCall} AS cost_per_completed_call
          FROM ${campaignCostsFrom}
          GROUP BY time, campaign
          ORDER BY time, campaign`

export const campaignCostsTable = `
          SELECT
            ifNull(any(campaign_name), campaign_id) AS campaign,
            count() AS calls,
            countIf(status = 'Completed') AS completed,
            round(sum(cost), 2) AS total_cost,
            any(currency) AS currency,
            round(${perCompletedCall}, 4) AS cost_per_completed_call,
            round(sum(telephony_cost), 2) AS telephony,
            round(sum(stt_cost) + sum(tts_cost) + sum(llm_cost), 2) AS speech_and_model,
            round(sumIf(cost, room_failed), 2) AS lost_to_failed_rooms,
            countIf(unpriced) AS unpriced_calls
          FROM ${campaignCostsFrom}
          GROUP BY campaign_id
          ORDER BY total_cost DESC`

export const agentCostsTable = `
          SELECT
            ifNull(any(agent_name), agent_id) AS agent,
            count() AS conversations,
            round(sum(cost), 2) AS total_cost,
            any(currency) AS currency,
            round(avg(cost), 4) AS avg_cost_per_call,
            round(sum(cost) / nullIf(sumIf(duration_seconds, NOT unpriced) / 60, 0), 4) AS cost_per_minute,
            round(sumIf(cost, room_failed), 2) AS lost_to_failed_rooms,
            countIf(unpriced) AS unpriced_calls
          FROM ${costsFrom}
          GROUP BY agent_id
          ORDER BY total_cost DESC`

export const costPerAgentOverTime = `
          SELECT $__timeInterval(event_time) AS time, ifNull(agent_name, agent_id) AS agent, sum(cost) AS total_cost
          FROM ${costsFrom}
          GROUP BY time, agent
          ORDER BY time, agent`
