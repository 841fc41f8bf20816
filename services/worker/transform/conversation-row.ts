import type { LatencyMetric } from '../../../core/clickhouse/latency-metrics.ts'
import { timestampMs } from './clickhouse-values.ts'
import type { ConversationContext } from './conversation-context.ts'
import { conversationSpeech } from './conversation-speech.ts'
import { extraFieldsJson } from './extra-fields-json.ts'
import { percentileOfSorted as percentile } from './latency-percentiles.ts'
import { isAgent, isMessage, isUser } from './metric-quality.ts'
import { originColumns } from './origin-columns.ts'
import type { ConversationItemRow, ConversationRow, HandoffRow, ToolCallRow } from './table-rows.ts'
import { type TurnTakingSettings, turnTaking } from './turn-taking.ts'

/** The rows of the other tables the conversation's figures are counted from. */
export interface ConversationParts {
  items: readonly ConversationItemRow[]
  toolCalls: readonly ToolCallRow[]
  handoffs: readonly HandoffRow[]
  durationSeconds: number | null
  /** The fingerprint of the agent configuration it ran (agent-config.ts), null when it shows none. */
  configFingerprint: string | null
}

/** The conversation's one row: its payload's fields, its figures and where Kafka delivered it. */
export function conversationRow(
  context: ConversationContext,
  parts: ConversationParts,
  settings: TurnTakingSettings,
): ConversationRow {
  const { envelope, data, delivery } = context
  const { items, durationSeconds } = parts
  const counts = itemCounts(items)
  let toolCallCount = 0
  let toolErrorCount = 0
  for (const row of parts.toolCalls) {
    if (row.call_item_index !== null) toolCallCount++
    if (row.tool_is_error === true) toolErrorCount++
  }
  const e2e = sortedValues(items, 'e2e_latency')
  const ttft = sortedValues(items, 'llm_node_ttft')
  const ttfb = sortedValues(items, 'tts_node_ttfb')
  const transcription = sortedValues(items, 'transcription_delay')
  const endOfTurn = sortedValues(items, 'end_of_turn_delay')
  const testEval = data.test_eval_result
  const room = data.room_metadata
  const { speech, flagged } = conversationSpeech(items)
  const turns = turnTaking(
    speech,
    { startMs: context.startTime ?? undefined, agentJoinedMs: context.agentJoinedAt ?? undefined },
    settings,
  )
  const figures = turns.figures
  return {
    ...context.columns,
    event_time_source: context.keyTimeSource,
    event: envelope.event,
    audio_url: data.audio_url ?? null,
    audio_url_expires_at: timestampMs(data.audio_url_expires_at, 'data.audio_url_expires_at'),
    created_at: context.createdAt,
    start_time: context.startTime,
    agent_joined_at: context.agentJoinedAt,
    duration_seconds: durationSeconds,
    telecom_provider: data.telecom_provider ?? null,
    from_number: data.from_number ?? null,
    to_number: data.to_number ?? null,
    call_sid: data.call_sid ?? null,
    campaign_item_id: data.campaign_item_id ?? null,
    campaign_id: context.campaignId,
    campaign_name: data.campaign_name ?? null,
    url_parameters: data.url_parameters ?? {},
    test_run_id: context.testRunId,
    test_id: data.test_id ?? null,
    test_status: data.test_status ?? null,
    test_success: testEval?.success ?? null,
    test_reasons: testEval?.reasons ?? [],
    test_completion_reason: testEval?.completion_reason ?? null,
    room_failed: room?.failed ?? null,
    room_skip_composite_egress: room?.skipCompositeEgress ?? null,
    room_error: room?.error ?? null,
    status: data.status ?? null,
    error_message: data.error_message ?? null,
    item_count: items.length,
    user_turn_count: counts.userTurns,
    agent_turn_count: counts.agentTurns,
    tool_call_count: toolCallCount,
    tool_error_count: toolErrorCount,
    interruption_count: counts.interruptions,
    handoff_count: parts.handoffs.length,
    flagged_item_count: counts.flaggedItems,
    e2e_latency_p50: percentile(e2e, 0.5),
    e2e_latency_p95: percentile(e2e, 0.95),
    llm_node_ttft_p50: percentile(ttft, 0.5),
    llm_node_ttft_p95: percentile(ttft, 0.95),
    tts_node_ttfb_p50: percentile(ttfb, 0.5),
    tts_node_ttfb_p95: percentile(ttfb, 0.95),
    transcription_delay_p50: percentile(transcription, 0.5),
    transcription_delay_p95: percentile(transcription, 0.95),
    end_of_turn_delay_p50: percentile(endOfTurn, 0.5),
    end_of_turn_delay_p95: percentile(endOfTurn, 0.95),
    dead_air_threshold_ms: settings.deadAirMs,
    agent_talk_ms: figures?.agentTalkMs ?? null,
    caller_talk_ms: figures?.callerTalkMs ?? null,
    talk_ratio: figures?.talkRatio ?? null,
    silence_ms: figures?.silenceMs ?? null,
    dead_air_count: figures?.deadAirCount ?? null,
    longest_silence_ms: figures?.longestSilenceMs ?? null,
    caller_barge_ins: figures?.callerBargeIns ?? null,
    barge_ins_yielded: figures?.bargeInsYielded ?? null,
    agent_cut_ins: figures?.agentCutIns ?? null,
    overlap_ms: figures?.overlapMs ?? null,
    first_word_ms: figures?.firstWordMs ?? null,
    response_turns: figures?.responseTurns ?? null,
    response_gap_p50_ms: figures?.responseGapP50Ms ?? null,
    response_gap_p95_ms: figures?.responseGapP95Ms ?? null,
    gap_e2e_disagreements: figures?.gapE2eDisagreements ?? null,
    speech_left_out: flagged + turns.leftOut.noStop + turns.leftOut.overlapsItsSide,
    config_fingerprint: parts.configFingerprint,
    ...originColumns(envelope.origin),
    extra_fields_json: extraFieldsJson(data),
    envelope_extra_fields_json: extraFieldsJson(envelope),
    test_eval_result_extra_fields_json: extraFieldsJson(testEval),
    room_metadata_extra_fields_json: extraFieldsJson(room),
    received_at: context.receivedAt,
    kafka_topic: delivery.topic,
    kafka_partition: delivery.partition,
    kafka_offset: delivery.offset,
  }
}

/** The item counts of the conversation row, in one pass over its items. */
function itemCounts(items: readonly ConversationItemRow[]) {
  let userTurns = 0
  let agentTurns = 0
  let interruptions = 0
  let flaggedItems = 0
  for (const item of items) {
    if (isMessage(item)) {
      if (isUser(item)) userTurns++
      if (isAgent(item)) agentTurns++
    }
    if (item.interrupted === true) interruptions++
    if (item.metric_flags.length > 0) flaggedItems++
  }
  return { userTurns, agentTurns, interruptions, flaggedItems }
}

/** A metric's values over the items, sorted once for both of its percentiles. */
function sortedValues(items: readonly ConversationItemRow[], name: LatencyMetric): number[] {
  const found: number[] = []
  for (const item of items) {
    const value = item[name]
    if (value !== null) found.push(value)
  }
  return found.sort((a, b) => a - b)
}
