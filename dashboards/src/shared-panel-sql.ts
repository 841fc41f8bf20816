import { filters, includeFlaggedVariable, itemsAsFlaggedChosen, rollupColumn } from './clickhouse-filters.ts'
import { histogramQuantile, mergedHistogram } from './latency-histogram.ts'
import { latencyRollupRows } from './latency-rollup-rows.ts'
import { continuationMark, database } from './panel-sql.ts'

// The SQL of the panels that both the Grafana dashboards and the overview page of `./run dev`
// (dev-server/overview) show: one source of truth, so the page's numbers are the dashboards'.
// Each is the panel's raw SQL with Grafana's macros ($__timeFilter, $__conditionalAll, ...); the
// dashboards hand it to Grafana as it is, the page expands the macros itself (grafana-macros.ts).

/**
 * p50/p95/p99 of one latency per agent over time, from the latency rollups' histograms (latency-rollup-rows.ts)
 * (within 1 % of the exact percentiles, latency-histogram.ts), milliseconds; flagged values left out
 * unless $include_flagged says 1.
 */
export const percentilesOverTime = (metric: string) => `
  SELECT
    $__timeInterval(at) AS time,
    ifNull(agent_name, agent_id) AS agent,
    ${histogramQuantile(0.5, mergedHistogram(metric))} * 1000 AS p50,
    ${histogramQuantile(0.95, mergedHistogram(metric))} * 1000 AS p95,
    ${histogramQuantile(0.99, mergedHistogram(metric))} * 1000 AS p99
  FROM ${latencyRollupRows([metric], true)}
  WHERE ${rollupColumn(metric, 'count')} > 0
  GROUP BY time, agent
  ORDER BY time, agent`

// A conversation's chosen turns (flagged ones only when $include_flagged says 1): how many, and the slowest.
const withFlagged = `\${${includeFlaggedVariable}:raw} = 1 AND e2e_latency_flagged_count > 0`
const chosenTurns = `e2e_latency_unflagged_count + if(${withFlagged}, e2e_latency_flagged_count, 0)`
const slowestTurnOf = `multiIf(${withFlagged} AND e2e_latency_unflagged_count > 0, greatest(e2e_latency_unflagged_max, e2e_latency_flagged_max), ${withFlagged}, e2e_latency_flagged_max, e2e_latency_unflagged_max)`

export const conversationsCount = `
          SELECT count() AS conversations
          FROM ${database}.conversations FINAL
          WHERE $__timeFilter(event_time)
            AND ${filters.conversations}`

export const failedRoomsCount = `
          SELECT countIf(room_failed) AS failed_rooms
          FROM ${database}.conversations FINAL
          WHERE $__timeFilter(event_time)
            AND ${filters.conversations}`

/**
 * The 50 slowest agent turns. Only item rows of the conversations that can hold them are read: the
 * 50 conversations (ties included) with the largest end-to-end latency among the chosen turns, from
 * the per-conversation rollup (which keeps each conversation's maximum exactly); the 50 slowest turns
 * lie in those. The items are then found by their sorting key (agent_id, event_time, session_id).
 */
export const slowestTurns = `
          SELECT
            session_id,
            item_index,
            ifNull(agent_name, agent_id) AS agent,
            created_at,
            round(e2e_latency * 1000) AS e2e_ms,
            round(llm_node_ttft * 1000) AS llm_ttft_ms,
            round(tts_node_ttfb * 1000) AS tts_ttfb_ms,
            interrupted,
            arrayStringConcat(metric_flags, ', ') AS metric_flags,
            left(ifNull(content, ''), 160) AS content
          FROM ${database}.conversation_items FINAL
          WHERE (agent_id, event_time, session_id) IN (
              SELECT agent_id, event_time, session_id
              FROM ${database}.conversation_latency FINAL
              WHERE $__timeFilter(event_time)
                AND ${filters.conversations}
                AND ${chosenTurns} > 0
              ORDER BY ${slowestTurnOf} DESC
              LIMIT 50 WITH TIES)
            AND $__timeFilter(event_time)
            AND e2e_latency IS NOT NULL
            AND ${itemsAsFlaggedChosen()}
          ORDER BY e2e_latency DESC
          LIMIT 50`

/** The campaign calls in range (campaign_items, one row per call), with the dashboard's filters. */
export const campaignCallsFrom = `${database}.campaign_items FINAL
${continuationMark}WHERE $__timeFilter(event_time)
${continuationMark}  AND ${filters.campaignItems}`

export const callsPerCampaign = `
          SELECT $__timeInterval(event_time) AS time, ifNull(campaign_name, campaign_id) AS campaign, count() AS calls
          FROM ${campaignCallsFrom}
          GROUP BY time, campaign
          ORDER BY time, campaign`

export const campaignFailureRates = `
          SELECT
            $__timeInterval(event_time) AS time,
            ifNull(campaign_name, campaign_id) AS campaign,
            countIf(room_failed) / count() AS failed_rooms,
            countIf(error_message != '') / count() AS errors
          FROM ${campaignCallsFrom}
          GROUP BY time, campaign
          ORDER BY time, campaign`

export const campaignsTable = `
          SELECT
            ifNull(any(campaign_name), campaign_id) AS campaign,
            campaign_id,
            count() AS calls,
            uniqExact(campaign_item_id) AS campaign_items,
            countIf(status = 'Completed') AS completed,
            countIf(room_failed) AS failed_rooms,
            round(countIf(room_failed) / count(), 4) AS failed_share,
            round(countIf(error_message != '') / count(), 4) AS error_share,
            round(avg(duration_seconds), 1) AS avg_duration_s,
            round(sum(user_turn_count) / count(), 1) AS avg_user_turns,
            min(event_time) AS first_call,
            max(event_time) AS last_call
          FROM ${campaignCallsFrom}
          GROUP BY campaign_id
          ORDER BY calls DESC`

/** The test conversations in range (test_results), with the dashboard's filters. */
export const testResultsFrom = `${database}.test_results FINAL
${continuationMark}WHERE $__timeFilter(event_time)
${continuationMark}  AND ${filters.testResults}`

/** Passed of evaluated tests; a test without test_eval_result is "not evaluated". */
export const passRate = 'countIf(test_success) / nullIf(countIf(test_success IS NOT NULL), 0)'

export const passRateOverTime = `
          SELECT $__timeInterval(event_time) AS time, ${passRate} AS pass_rate
          FROM ${testResultsFrom}
          GROUP BY time
          ORDER BY time`
