import { storedDateTimeSeconds } from '../../../core/clickhouse/clickhouse-native-format.ts'
import { latencyMetrics } from '../../../core/clickhouse/latency-metrics.ts'
import type { ContextColumns, ConversationItemRow, LatencyFeedRow } from './table-rows.ts'

/** The feed's columns of each metric's unflagged and flagged values, named once (not per value). */
const unflaggedColumns = latencyMetrics.map((name) => `${name}_unflagged` as const)
const flaggedColumns = latencyMetrics.map((name) => `${name}_flagged` as const)

/**
 * The minute rollup's input: per minute of this conversation, its latency values, those of
 * unflagged and of flagged items apart. An item counts in the minute it was created (else when speech started,
 * else the conversation's time).
 */
export function agentLatencyFeedRows(
  items: readonly ConversationItemRow[],
  conversation: ContextColumns,
): LatencyFeedRow[] {
  const byMinute = new Map<number, LatencyFeedRow>()
  for (const item of items) {
    if (latencyMetrics.every((name) => item[name] === null)) continue
    const at = item.created_at ?? item.started_speaking_at ?? conversation.event_time
    // Keyed as stored: the re-delivery plan compares this key with the one read back.
    const minute = storedDateTimeSeconds(Math.floor(at / 60_000) * 60)
    let row = byMinute.get(minute)
    if (!row) {
      row = {
        agent_id: conversation.agent_id,
        minute,
        session_id: conversation.session_id,
        agent_name: conversation.agent_name,
        source: conversation.source,
        version: conversation.version,
        is_deleted: conversation.is_deleted,
        e2e_latency_unflagged: [],
        llm_node_ttft_unflagged: [],
        tts_node_ttfb_unflagged: [],
        transcription_delay_unflagged: [],
        end_of_turn_delay_unflagged: [],
        e2e_latency_flagged: [],
        llm_node_ttft_flagged: [],
        tts_node_ttfb_flagged: [],
        transcription_delay_flagged: [],
        end_of_turn_delay_flagged: [],
      }
      byMinute.set(minute, row)
    }
    // A flagged item's values go to the flagged histograms, which panels add only when asked.
    const columns = item.metric_flags.length === 0 ? unflaggedColumns : flaggedColumns
    for (let metric = 0; metric < latencyMetrics.length; metric++) {
      const value = item[latencyMetrics[metric]!]
      if (value !== null) row[columns[metric]!].push(value)
    }
  }
  return [...byMinute.values()].sort((a, b) => a.minute - b.minute)
}
