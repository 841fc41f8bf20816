import { latencyMetrics } from '../../../core/clickhouse/latency-metrics.ts'
import type { AvroRecord } from '../../../core/event/event-record.ts'
import { agentConfig, configFingerprint } from './agent-config.ts'
import { agentLatencyFeedRows } from './agent-latency-feed-rows.ts'
import { agentVersionRows } from './agent-version-rows.ts'
import { campaignItemRows } from './campaign-item-rows.ts'
import { finiteNumber } from './clickhouse-values.ts'
import { conversationContext, type Delivery } from './conversation-context.ts'
import { conversationItemRows, flagItemRows } from './conversation-item-rows.ts'
import { conversationLatencyFeedRow } from './conversation-latency-feed-row.ts'
import { conversationRow } from './conversation-row.ts'
import { handoffRows } from './handoff-rows.ts'
import { conversationSpan } from './metric-quality.ts'
import type { TableRows } from './table-rows.ts'
import { testResultRows } from './test-result-rows.ts'
import { toolCallRows } from './tool-call-rows.ts'
import { defaultTurnTaking, type TurnTakingSettings } from './turn-taking.ts'

export type { Delivery }
export { latencyMetrics }

// THE transform: one decoded ConversationComplete (the Avro record, whose extra_fields_json carry
// what the schema does not know) becomes the rows of every table. Pure: no I/O, no clock; the
// same record and delivery always give the same rows, which is what makes retried inserts
// deduplicate, and every key comes from the payload (conversation-key-time.ts), so a
// re-delivery lands on the same keys. Each table's rows are built in rows/, one file a table, from
// one context computed once per conversation; a history item becomes a row only in
// conversation-item-rows.ts. This function orders the steps: the item rows first, as the others read them.
export function conversationRows(
  record: AvroRecord,
  delivery: Delivery,
  turnTaking: TurnTakingSettings = defaultTurnTaking,
): TableRows {
  const context = conversationContext(record, delivery)
  const items = conversationItemRows(context)
  // Flags need the whole conversation (an agent turn's e2e includes the user turn it answers).
  // duration_seconds is checked after the items' values: a record wrong in both is refused naming the item.
  const durationSeconds = finiteNumber(context.data.duration_seconds, 'data.duration_seconds')
  flagItemRows(items, conversationSpan(context.startTime, context.createdAt, durationSeconds))
  const toolCalls = toolCallRows(context, items)
  const handoffs = handoffRows(context, items)
  const config = agentConfig(context.history)
  const configured = config && { config, fingerprint: configFingerprint(config) }
  const conversation = conversationRow(
    context,
    { items, toolCalls, handoffs, durationSeconds, configFingerprint: configured?.fingerprint ?? null },
    turnTaking,
  )
  return {
    conversations: [conversation],
    conversation_items: items,
    tool_calls: toolCalls,
    handoffs,
    test_results: testResultRows(context, conversation),
    campaign_items: campaignItemRows(context, conversation),
    agent_versions: agentVersionRows(context, configured),
    agent_latency_feed: agentLatencyFeedRows(items, context.columns),
    conversation_latency_feed: [conversationLatencyFeedRow(conversation, items)],
  }
}
