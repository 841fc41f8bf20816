import { storedDateTimeSeconds } from '../core/clickhouse-native-format.ts'
import type {
  ConversationCompleteEvent,
  ConversationData,
  HistoryItem,
} from '../core/event/conversation-complete.types.ts'
import type { AvroRecord } from '../core/event/event-record.ts'
import { extraFieldsField } from '../core/event/event-schema.ts'
import { type LatencyMetric, latencyMetrics } from '../core/latency-metrics.ts'
import { finiteNumber, measuredValue, timestampMs } from './clickhouse-values.ts'
import { conversationKeyTime } from './conversation-key-time.ts'
import { percentileOfSorted as percentile } from './latency-percentiles.ts'
import { conversationSpan, metricFlags, noMetricFlags } from './metric-quality.ts'
import type {
  CampaignItemRow,
  ConversationItemRow,
  ConversationLatencyFeedRow,
  ConversationRow,
  HandoffRow,
  LatencyFeedRow,
  TableRows,
  TestResultRow,
  ToolCallRow,
} from './table-rows.ts'
import { pairToolCalls } from './tool-call-pairing.ts'
import { TransformError } from './transform-error.ts'

export { latencyMetrics }

// THE transform: one decoded ConversationComplete (the Avro record, whose extra_fields_json carry
// what the schema does not know) becomes the rows of every table. Pure: no I/O, no clock; the
// same record and delivery always give the same rows, which is what makes retried inserts
// deduplicate, and every key comes from the payload (conversation-key-time.ts), so a re-delivery
// lands on the same keys. Here, and only here, a history item becomes a row.
export interface Delivery {
  topic: string
  partition: number
  offset: number
  /** Kafka message timestamp (ms): the version when the record has no received_at. */
  timestampMs: number
}

type Decoded = ConversationCompleteEvent & {
  source?: string | null
  received_at?: number | null
}

/** The feed's columns of each metric's unflagged and flagged values, named once (not per value). */
const unflaggedColumns = latencyMetrics.map((name) => `${name}_unflagged` as const)
const flaggedColumns = latencyMetrics.map((name) => `${name}_flagged` as const)

function extraJson(object: Record<string, unknown> | null | undefined): string | null {
  const extra = object?.[extraFieldsField]
  return typeof extra === 'string' ? extra : null
}

/** tools_added of the items without any (most): one shared list, frozen so that nothing adds to it. */
const noToolsAdded = Object.freeze([]) as unknown as string[]

const isRole = (item: HistoryItem, pattern: RegExp) => item.role != null && pattern.test(item.role)
const isMessage = (item: HistoryItem) => item.kind == null || /^message$/i.test(item.kind)
const userRole = /^user$/i
const agentRole = /^(assistant|agent)$/i

// An item row (~40 per conversation) is one object literal with all its columns: no spread of the
// shared context, whose copy and then growth property by property cost more than the values (and
// left garbage). The rows there are one or a few of per conversation keep the spread.
export function conversationRows(record: AvroRecord, delivery: Delivery): TableRows {
  const envelope = record as Decoded
  const data: ConversationData = envelope.data
  if (typeof data?.session_id !== 'string' || data.session_id === '')
    throw new TransformError('data.session_id', 'missing or empty')
  const history = data.history ?? []
  const count = history.length

  const receivedAt = typeof envelope.received_at === 'number' ? envelope.received_at : null
  const createdAt = timestampMs(data.created_at, 'data.created_at')
  const startTime = timestampMs(data.start_time, 'data.start_time')
  const agentJoinedAt = timestampMs(data.agent_joined_at, 'data.agent_joined_at')
  // The items' times first: the key time (on every row) may come from the earliest of them.
  const createdAts: (number | null)[] = new Array(count)
  const startedAts: (number | null)[] = new Array(count)
  const stoppedAts: (number | null)[] = new Array(count)
  let earliestItemTime: number | null = null
  for (let index = 0; index < count; index++) {
    const item = history[index]!
    const metrics = item.metrics
    const created = timestampMs(item.created_at, 'created_at', index)
    const started = timestampMs(metrics?.started_speaking_at, 'metrics.started_speaking_at', index)
    const stopped = timestampMs(metrics?.stopped_speaking_at, 'metrics.stopped_speaking_at', index)
    createdAts[index] = created
    startedAts[index] = started
    stoppedAts[index] = stopped
    for (const ms of [created, started, stopped])
      if (ms !== null && (earliestItemTime === null || ms < earliestItemTime)) earliestItemTime = ms
  }
  const keyTime = conversationKeyTime({ startTime, createdAt, others: [agentJoinedAt, earliestItemTime] })
  const sessionId = data.session_id
  const eventTime = keyTime.ms
  const agentId = data.agent_id ?? ''
  const agentName = data.agent_name ?? null
  const source = envelope.source ?? ''
  const version = receivedAt ?? delivery.timestampMs
  const context = {
    session_id: sessionId,
    event_time: eventTime,
    agent_id: agentId,
    agent_name: agentName,
    source,
    version,
    is_deleted: 0 as const,
  }
  const campaignId = data.campaign_id ?? null
  const testRunId = data.test_run_id ?? null

  // Items, in order, with the agent speaking at each (handoffs move it on after their item).
  const items: ConversationItemRow[] = []
  const handoffs: HandoffRow[] = []
  const activeAgents: string[] = []
  let activeAgent = agentId
  let userTurns = 0
  let agentTurns = 0
  let interruptions = 0
  for (let index = 0; index < count; index++) {
    const item = history[index]!
    const metrics = item.metrics
    const message = isMessage(item)
    if (message && isRole(item, userRole)) userTurns++
    if (message && isRole(item, agentRole)) agentTurns++
    if (item.interrupted === true) interruptions++
    activeAgents.push(activeAgent)
    const toolsAdded = item.tools_added ?? noToolsAdded
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
      created_at: createdAts[index]!,
      started_speaking_at: startedAts[index]!,
      stopped_speaking_at: stoppedAts[index]!,
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
      tools_added: toolsAdded,
      extra_fields_json: extraJson(item),
      metrics_extra_fields_json: extraJson(metrics),
      metric_flags: noMetricFlags,
    })
    if (item.handoff_to_agent_id != null) {
      handoffs.push({
        ...context,
        item_index: index,
        from_agent_id: activeAgent,
        to_agent_id: item.handoff_to_agent_id,
        handed_off_at: createdAts[index]!,
        instructions: item.instructions ?? null,
        tools_added: toolsAdded,
        campaign_id: campaignId,
        test_run_id: testRunId,
      })
      activeAgent = item.handoff_to_agent_id
    }
  }

  // Flags need the whole conversation (an agent turn's e2e includes the user turn it answers).
  const durationSeconds = finiteNumber(data.duration_seconds, 'data.duration_seconds')
  const flags = metricFlags(items, conversationSpan(startTime, createdAt, durationSeconds))
  let flaggedItems = 0
  for (let index = 0; index < count; index++) {
    const itemFlags = flags[index]!
    items[index]!.metric_flags = itemFlags
    if (itemFlags.length > 0) flaggedItems++
  }

  const toolCalls: ToolCallRow[] = pairToolCalls(history).map(({ callIndex, call, output }) => {
    const calledAt = call ? createdAts[call.index]! : null
    const outputAt = output ? createdAts[output.index]! : null
    return {
      ...context,
      call_index: callIndex,
      active_agent_id: activeAgents[callIndex]!,
      campaign_id: campaignId,
      test_run_id: testRunId,
      tool_call_id: call?.item.tool_call_id ?? output?.item.tool_call_id ?? null,
      tool_name: call?.item.tool_name ?? output?.item.tool_name ?? null,
      tool_arguments_json: call?.item.tool_arguments_json ?? null,
      call_item_index: call?.index ?? null,
      called_at: calledAt,
      output_item_index: output?.index ?? null,
      output_at: outputAt,
      tool_output: output?.item.tool_output ?? null,
      tool_is_error: output?.item.tool_is_error ?? null,
      duration_seconds: calledAt !== null && outputAt !== null ? (outputAt - calledAt) / 1000 : null,
    }
  })
  let toolCallCount = 0
  let toolErrorCount = 0
  for (const row of toolCalls) {
    if (row.call_item_index !== null) toolCallCount++
    if (row.tool_is_error === true) toolErrorCount++
  }

  // Each metric's values once, sorted once for both of its percentiles.
  const values = (name: LatencyMetric) => {
    const found: number[] = []
    for (const item of items) {
      const value = item[name]
      if (value !== null) found.push(value)
    }
    return found.sort((a, b) => a - b)
  }
  const e2e = values('e2e_latency')
  const ttft = values('llm_node_ttft')
  const ttfb = values('tts_node_ttfb')
  const transcription = values('transcription_delay')
  const endOfTurn = values('end_of_turn_delay')
  const testEval = data.test_eval_result
  const room = data.room_metadata

  const conversation: ConversationRow = {
    ...context,
    event_time_source: keyTime.source,
    event: envelope.event,
    audio_url: data.audio_url ?? null,
    audio_url_expires_at: timestampMs(data.audio_url_expires_at, 'data.audio_url_expires_at'),
    created_at: createdAt,
    start_time: startTime,
    agent_joined_at: agentJoinedAt,
    duration_seconds: durationSeconds,
    telecom_provider: data.telecom_provider ?? null,
    from_number: data.from_number ?? null,
    to_number: data.to_number ?? null,
    call_sid: data.call_sid ?? null,
    campaign_item_id: data.campaign_item_id ?? null,
    campaign_id: campaignId,
    campaign_name: data.campaign_name ?? null,
    url_parameters: data.url_parameters ?? {},
    test_run_id: testRunId,
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
    item_count: count,
    user_turn_count: userTurns,
    agent_turn_count: agentTurns,
    tool_call_count: toolCallCount,
    tool_error_count: toolErrorCount,
    interruption_count: interruptions,
    handoff_count: handoffs.length,
    flagged_item_count: flaggedItems,
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
    extra_fields_json: extraJson(data),
    envelope_extra_fields_json: extraJson(envelope),
    test_eval_result_extra_fields_json: extraJson(testEval),
    room_metadata_extra_fields_json: extraJson(room),
    received_at: receivedAt,
    kafka_topic: delivery.topic,
    kafka_partition: delivery.partition,
    kafka_offset: delivery.offset,
  }

  const testResults: TestResultRow[] =
    data.test_run_id != null || data.test_id != null || data.test_status != null || testEval != null
      ? [
          {
            ...context,
            test_run_id: data.test_run_id ?? '',
            test_id: data.test_id ?? '',
            test_status: conversation.test_status,
            test_success: conversation.test_success,
            test_reasons: conversation.test_reasons,
            test_completion_reason: conversation.test_completion_reason,
            status: conversation.status,
            room_failed: conversation.room_failed,
            error_message: conversation.error_message,
            duration_seconds: durationSeconds,
            item_count: count,
          },
        ]
      : []

  const campaignItems: CampaignItemRow[] =
    data.campaign_id != null || data.campaign_item_id != null
      ? [
          {
            ...context,
            campaign_id: data.campaign_id ?? '',
            campaign_item_id: data.campaign_item_id ?? '',
            campaign_name: conversation.campaign_name,
            status: conversation.status,
            room_failed: conversation.room_failed,
            room_error: conversation.room_error,
            error_message: conversation.error_message,
            duration_seconds: durationSeconds,
            telecom_provider: conversation.telecom_provider,
            from_number: conversation.from_number,
            to_number: conversation.to_number,
            call_sid: conversation.call_sid,
            url_parameters: conversation.url_parameters,
            user_turn_count: userTurns,
          },
        ]
      : []

  return {
    conversations: [conversation],
    conversation_items: items,
    tool_calls: toolCalls,
    handoffs,
    test_results: testResults,
    campaign_items: campaignItems,
    agent_latency_feed: latencyFeedRows(items, context),
    conversation_latency_feed: [conversationLatencyFeedRow(conversation, items)],
  }
}

/**
 * The per-conversation rollup's input: what the dashboards break latency down by, and the
 * end-to-end latencies of its turns, unflagged and flagged apart (migration 0008).
 */
function conversationLatencyFeedRow(
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

/**
 * The minute rollup's input: per minute of this conversation, its latency values, those of
 * unflagged and of flagged items apart. An item counts in the minute it was created (else when speech started,
 * else the conversation's time).
 */
function latencyFeedRows(
  items: readonly ConversationItemRow[],
  context: Pick<
    LatencyFeedRow,
    'agent_id' | 'session_id' | 'agent_name' | 'source' | 'version' | 'is_deleted'
  > & {
    event_time: number
  },
): LatencyFeedRow[] {
  const byMinute = new Map<number, LatencyFeedRow>()
  for (const item of items) {
    if (latencyMetrics.every((name) => item[name] === null)) continue
    const at = item.created_at ?? item.started_speaking_at ?? context.event_time
    // Keyed as stored: the re-delivery plan compares this key with the one read back.
    const minute = storedDateTimeSeconds(Math.floor(at / 60_000) * 60)
    let row = byMinute.get(minute)
    if (!row) {
      row = {
        agent_id: context.agent_id,
        minute,
        session_id: context.session_id,
        agent_name: context.agent_name,
        source: context.source,
        version: context.version,
        is_deleted: context.is_deleted,
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
