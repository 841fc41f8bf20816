import { filters } from './clickhouse-filters.ts'
import { database } from './panel-sql.ts'

// How the conversations went (#31), from the turn-taking columns of `conversations` (migration
// 0018, docs/metrics.md): the panels of the Conversation quality dashboard and the overview page,
// and the figures the quality alerts judge. A conversation counts only when it has measurable
// speech (agent_talk_ms IS NOT NULL); the rates are over those calls, or over their agent turns.

/** Conversations with measurable speech. */
export const withSpeech = 'agent_talk_ms IS NOT NULL'

/** Each quality figure once, over calls with speech (`speechCalls`), for panels and alert rules alike. */
export const qualityFigures = {
  talkRatio: 'avg(talk_ratio)',
  deadAirShare: 'countIf(dead_air_count > 0) / count()',
  longestSilenceP95Ms: 'quantileExact(0.95)(longest_silence_ms)',
  bargeInsPerAgentTurn: 'sum(caller_barge_ins) / nullIf(sum(agent_turn_count), 0)',
  bargeInsYieldedShare: 'sum(barge_ins_yielded) / nullIf(sum(caller_barge_ins), 0)',
  cutInsPerAgentTurn: 'sum(agent_cut_ins) / nullIf(sum(agent_turn_count), 0)',
  responseGapMedianMs: 'quantileExact(0.5)(response_gap_p50_ms)',
  firstWordMedianMs: 'quantileExact(0.5)(first_word_ms)',
}
const f = qualityFigures

/** The calls with speech in the time range, with the dashboard's filters. */
export const speechCalls = `${database}.conversations FINAL
  WHERE $__timeFilter(event_time)
    AND ${filters.conversations}
    AND ${withSpeech}`

/** The quality figures of a group of conversations, as SELECT columns. */
export const qualityColumns = [
  'count() AS calls',
  `round(${f.talkRatio}, 3) AS talk_ratio`,
  `round(${f.deadAirShare}, 3) AS dead_air_share`,
  `round(${f.longestSilenceP95Ms} / 1000, 1) AS longest_silence_p95_s`,
  `round(${f.bargeInsPerAgentTurn}, 3) AS barge_ins_per_agent_turn`,
  `round(${f.bargeInsYieldedShare}, 3) AS barge_ins_yielded_share`,
  `round(${f.cutInsPerAgentTurn}, 3) AS cut_ins_per_agent_turn`,
  `round(${f.responseGapMedianMs}) AS response_gap_median_ms`,
  `round(${f.firstWordMedianMs}) AS first_word_median_ms`,
].join(',\n    ')

/** The quality figures per value of `group` (an expression of conversations' columns, named `label`). */
export const qualityBy = (group: string, label: string) => `
  SELECT
    ${group} AS ${label},
    ${qualityColumns}
  FROM ${speechCalls}
  GROUP BY ${label}
  ORDER BY calls DESC`

export const qualityPerAgent = qualityBy('ifNull(agent_name, agent_id)', 'agent')

/** Test conversations (of a test run or a test) against production ones. */
export const qualityTestVsProduction = qualityBy(
  "if(test_run_id IS NOT NULL OR test_id IS NOT NULL, 'test', 'production')",
  'traffic',
)

/** Per agent over time: the share of calls with dead air. */
export const qualityOverTime = `
  SELECT
    $__timeInterval(event_time) AS time,
    ifNull(agent_name, agent_id) AS agent,
    ${f.deadAirShare} AS dead_air_share
  FROM ${speechCalls}
  GROUP BY time, agent
  ORDER BY time, agent`

/** The 50 calls with the longest silences: where to listen first. */
export const longestSilences = `
  SELECT
    session_id,
    ifNull(agent_name, agent_id) AS agent,
    event_time,
    round(longest_silence_ms / 1000, 1) AS longest_silence_s,
    dead_air_count,
    round(silence_ms / 1000, 1) AS silence_s,
    round(talk_ratio, 2) AS talk_ratio,
    caller_barge_ins,
    audio_url
  FROM ${database}.conversations FINAL
  WHERE $__timeFilter(event_time)
    AND ${filters.conversations}
    AND longest_silence_ms IS NOT NULL
  ORDER BY longest_silence_ms DESC
  LIMIT 50`
