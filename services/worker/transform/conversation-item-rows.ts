import { measuredValue } from './clickhouse-values.ts'
import type { ConversationContext } from './conversation-context.ts'
import { extraFieldsJson } from './extra-fields-json.ts'
import { type ConversationSpan, metricFlags, noMetricFlags } from './metric-quality.ts'
import type { ConversationItemRow } from './table-rows.ts'

/** tools_added of the items without any (most): one shared list, frozen so that nothing adds to it. */
const noToolsAdded = Object.freeze([]) as unknown as string[]

/**
 * A row per history item, in order, with the agent speaking at each (a handoff moves it on after its
 * item); the handoff and tool-call rows read that agent and the item's time from these rows. Each
 * starts unflagged: flagItemRows sets metric_flags once all of them are built.
 */
export function conversationItemRows(context: ConversationContext): ConversationItemRow[] {
  const { history, columns, campaignId, testRunId, startTime } = context
  const { itemCreatedAt, itemStartedAt, itemStoppedAt } = context
  const { session_id: sessionId, event_time: eventTime, agent_id: agentId } = columns
  const { agent_name: agentName, source, version } = columns
  const items: ConversationItemRow[] = []
  let activeAgent = agentId
  // An item row (~40 per conversation) is one object literal with all its columns: no spread of the
  // shared context, whose copy and then growth property by property cost more than the values (and
  // left garbage). The rows there are one or a few of per conversation keep the spread.
  for (let index = 0; index < history.length; index++) {
    const item = history[index]!
    const metrics = item.metrics
    items.push({
      session_id: sessionId,
      event_time: eventTime,
      agent_id: agentId,
      agent_name: agentName,
      source,
      version,
      is_deleted: 0,
      item_index: index,
      campaign_id: campaignId,
      test_run_id: testRunId,
      start_time: startTime,
      active_agent_id: activeAgent,
      role: item.role ?? null,
      content: item.content ?? null,
      kind: item.kind ?? null,
      id: item.id ?? null,
      created_at: itemCreatedAt[index]!,
      started_speaking_at: itemStartedAt[index]!,
      stopped_speaking_at: itemStoppedAt[index]!,
      interrupted: item.interrupted ?? null,
      transcript_confidence: measuredValue(item.transcript_confidence, 'transcript_confidence', index),
      transcription_delay: measuredValue(metrics?.transcription_delay, 'metrics.transcription_delay', index),
      end_of_turn_delay: measuredValue(metrics?.end_of_turn_delay, 'metrics.end_of_turn_delay', index),
      on_user_turn_completed_delay: measuredValue(
        metrics?.on_user_turn_completed_delay,
        'metrics.on_user_turn_completed_delay',
        index,
      ),
      llm_node_ttft: measuredValue(metrics?.llm_node_ttft, 'metrics.llm_node_ttft', index),
      tts_node_ttfb: measuredValue(metrics?.tts_node_ttfb, 'metrics.tts_node_ttfb', index),
      e2e_latency: measuredValue(metrics?.e2e_latency, 'metrics.e2e_latency', index),
      tool_name: item.tool_name ?? null,
      tool_call_id: item.tool_call_id ?? null,
      tool_arguments_json: item.tool_arguments_json ?? null,
      tool_output: item.tool_output ?? null,
      tool_is_error: item.tool_is_error ?? null,
      handoff_to_agent_id: item.handoff_to_agent_id ?? null,
      instructions: item.instructions ?? null,
      tools_added: item.tools_added ?? noToolsAdded,
      extra_fields_json: extraFieldsJson(item),
      metrics_extra_fields_json: extraFieldsJson(metrics),
      metric_flags: noMetricFlags,
    })
    if (item.handoff_to_agent_id != null) activeAgent = item.handoff_to_agent_id
  }
  return items
}

/** Sets each item row's metric_flags: they need the whole conversation (an agent turn's e2e includes the user turn it answers). */
export function flagItemRows(items: ConversationItemRow[], span: ConversationSpan): void {
  const flags = metricFlags(items, span)
  for (let index = 0; index < items.length; index++) items[index]!.metric_flags = flags[index]!
}
