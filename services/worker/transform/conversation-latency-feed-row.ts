import type { ConversationItemRow, ConversationLatencyFeedRow, ConversationRow } from './table-rows.ts'

/**
 * The per-conversation rollup's input: what the dashboards break latency down by, and the
 * end-to-end latencies of its turns, unflagged and flagged apart (migration 0008).
 */
export function conversationLatencyFeedRow(
  conversation: ConversationRow,
  items: readonly ConversationItemRow[],
): ConversationLatencyFeedRow {
  const unflagged: number[] = []
  const flagged: number[] = []
  for (const item of items)
    if (item.e2e_latency !== null)
      (item.metric_flags.length === 0 ? unflagged : flagged).push(item.e2e_latency)
  return {
    session_id: conversation.session_id,
    event_time: conversation.event_time,
    agent_id: conversation.agent_id,
    agent_name: conversation.agent_name,
    source: conversation.source,
    version: conversation.version,
    is_deleted: conversation.is_deleted,
    campaign_id: conversation.campaign_id,
    campaign_name: conversation.campaign_name,
    telecom_provider: conversation.telecom_provider,
    test_run_id: conversation.test_run_id,
    is_test: conversation.test_run_id !== null || conversation.test_id !== null ? 1 : 0,
    status: conversation.status,
    room_failed: conversation.room_failed,
    failed: conversation.room_failed === true || (conversation.error_message ?? '') !== '' ? 1 : 0,
    e2e_latency_unflagged: unflagged,
    e2e_latency_flagged: flagged,
  }
}
