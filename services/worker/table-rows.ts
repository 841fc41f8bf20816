import type { KeyTimeSource } from './conversation-key-time.ts'

// The rows of each ClickHouse table as the worker writes them, and the column order of each insert
// (JSONCompactEachRow). Timestamps are epoch milliseconds (DateTime64(3)); `minute` is epoch
// seconds (DateTime). Every row a builder returns has exactly these columns (a unit test checks it,
// and an integration test checks them against the tables).
export type Ms = number

/** What every row of a conversation repeats so that queries filter without joins. */
interface ConversationContext {
  session_id: string
  event_time: Ms
  agent_id: string
  agent_name: string | null
  source: string
  version: number
  /** 1: a tombstone, which hides the row of an earlier delivery under the same key (FINAL). */
  is_deleted: 0 | 1
}

export interface ConversationRow extends ConversationContext {
  event_time_source: KeyTimeSource
  event: string
  audio_url: string | null
  audio_url_expires_at: Ms | null
  created_at: Ms | null
  start_time: Ms | null
  agent_joined_at: Ms | null
  duration_seconds: number | null
  telecom_provider: string | null
  from_number: string | null
  to_number: string | null
  call_sid: string | null
  campaign_item_id: string | null
  campaign_id: string | null
  campaign_name: string | null
  url_parameters: Record<string, string>
  test_run_id: string | null
  test_id: string | null
  test_status: string | null
  test_success: boolean | null
  test_reasons: string[]
  test_completion_reason: string | null
  room_failed: boolean | null
  room_skip_composite_egress: boolean | null
  room_error: string | null
  status: string | null
  error_message: string | null
  item_count: number
  user_turn_count: number
  agent_turn_count: number
  tool_call_count: number
  tool_error_count: number
  interruption_count: number
  handoff_count: number
  e2e_latency_p50: number | null
  e2e_latency_p95: number | null
  llm_node_ttft_p50: number | null
  llm_node_ttft_p95: number | null
  tts_node_ttfb_p50: number | null
  tts_node_ttfb_p95: number | null
  transcription_delay_p50: number | null
  transcription_delay_p95: number | null
  end_of_turn_delay_p50: number | null
  end_of_turn_delay_p95: number | null
  extra_fields_json: string | null
  envelope_extra_fields_json: string | null
  test_eval_result_extra_fields_json: string | null
  room_metadata_extra_fields_json: string | null
  received_at: Ms | null
  kafka_topic: string
  kafka_partition: number
  kafka_offset: number
}

export interface ConversationItemRow extends ConversationContext {
  item_index: number
  campaign_id: string | null
  test_run_id: string | null
  start_time: Ms | null
  active_agent_id: string
  role: string | null
  content: string | null
  kind: string | null
  id: string | null
  created_at: Ms | null
  interrupted: boolean | null
  transcript_confidence: number | null
  started_speaking_at: Ms | null
  stopped_speaking_at: Ms | null
  transcription_delay: number | null
  end_of_turn_delay: number | null
  on_user_turn_completed_delay: number | null
  llm_node_ttft: number | null
  tts_node_ttfb: number | null
  e2e_latency: number | null
  tool_name: string | null
  tool_call_id: string | null
  tool_arguments_json: string | null
  tool_output: string | null
  tool_is_error: boolean | null
  handoff_to_agent_id: string | null
  instructions: string | null
  tools_added: string[]
  extra_fields_json: string | null
  metrics_extra_fields_json: string | null
}

export interface ToolCallRow extends ConversationContext {
  call_index: number
  active_agent_id: string
  campaign_id: string | null
  test_run_id: string | null
  tool_call_id: string | null
  tool_name: string | null
  tool_arguments_json: string | null
  call_item_index: number | null
  called_at: Ms | null
  output_item_index: number | null
  output_at: Ms | null
  tool_output: string | null
  tool_is_error: boolean | null
  duration_seconds: number | null
}

export interface HandoffRow extends ConversationContext {
  item_index: number
  from_agent_id: string
  to_agent_id: string
  handed_off_at: Ms | null
  instructions: string | null
  tools_added: string[]
  campaign_id: string | null
  test_run_id: string | null
}

export interface TestResultRow extends ConversationContext {
  test_run_id: string
  test_id: string
  test_status: string | null
  test_success: boolean | null
  test_reasons: string[]
  test_completion_reason: string | null
  status: string | null
  room_failed: boolean | null
  error_message: string | null
  duration_seconds: number | null
  item_count: number
}

export interface CampaignItemRow extends ConversationContext {
  campaign_id: string
  campaign_item_id: string
  campaign_name: string | null
  status: string | null
  room_failed: boolean | null
  room_error: string | null
  error_message: string | null
  duration_seconds: number | null
  telecom_provider: string | null
  from_number: string | null
  to_number: string | null
  call_sid: string | null
  url_parameters: Record<string, string>
  user_turn_count: number
}

/** One conversation's latency values for one agent-minute (the rollup's input). */
export interface LatencyFeedRow {
  agent_id: string
  /** Epoch seconds, start of the minute. */
  minute: number
  session_id: string
  agent_name: string | null
  source: string
  version: number
  is_deleted: 0 | 1
  e2e_latency: number[]
  llm_node_ttft: number[]
  tts_node_ttfb: number[]
  transcription_delay: number[]
  end_of_turn_delay: number[]
}

export interface TableRows {
  conversations: ConversationRow[]
  conversation_items: ConversationItemRow[]
  tool_calls: ToolCallRow[]
  handoffs: HandoffRow[]
  test_results: TestResultRow[]
  campaign_items: CampaignItemRow[]
  agent_latency_feed: LatencyFeedRow[]
}
export type TableName = keyof TableRows

export const emptyTableRows = (): TableRows => ({
  conversations: [],
  conversation_items: [],
  tool_calls: [],
  handoffs: [],
  test_results: [],
  campaign_items: [],
  agent_latency_feed: [],
})

const context = [
  'session_id',
  'event_time',
  'agent_id',
  'agent_name',
  'source',
  'version',
  'is_deleted',
] as const

/** Insert order (on one session): the rollup feed and the children first, the conversation row last. */
export const tableColumns: { [T in TableName]: ReadonlyArray<keyof TableRows[T][number] & string> } = {
  agent_latency_feed: [
    'agent_id',
    'minute',
    'session_id',
    'agent_name',
    'source',
    'version',
    'is_deleted',
    'e2e_latency',
    'llm_node_ttft',
    'tts_node_ttfb',
    'transcription_delay',
    'end_of_turn_delay',
  ],
  conversation_items: [
    ...context,
    'item_index',
    'campaign_id',
    'test_run_id',
    'start_time',
    'active_agent_id',
    'role',
    'content',
    'kind',
    'id',
    'created_at',
    'interrupted',
    'transcript_confidence',
    'started_speaking_at',
    'stopped_speaking_at',
    'transcription_delay',
    'end_of_turn_delay',
    'on_user_turn_completed_delay',
    'llm_node_ttft',
    'tts_node_ttfb',
    'e2e_latency',
    'tool_name',
    'tool_call_id',
    'tool_arguments_json',
    'tool_output',
    'tool_is_error',
    'handoff_to_agent_id',
    'instructions',
    'tools_added',
    'extra_fields_json',
    'metrics_extra_fields_json',
  ],
  tool_calls: [
    ...context,
    'call_index',
    'active_agent_id',
    'campaign_id',
    'test_run_id',
    'tool_call_id',
    'tool_name',
    'tool_arguments_json',
    'call_item_index',
    'called_at',
    'output_item_index',
    'output_at',
    'tool_output',
    'tool_is_error',
    'duration_seconds',
  ],
  handoffs: [
    ...context,
    'item_index',
    'from_agent_id',
    'to_agent_id',
    'handed_off_at',
    'instructions',
    'tools_added',
    'campaign_id',
    'test_run_id',
  ],
  test_results: [
    ...context,
    'test_run_id',
    'test_id',
    'test_status',
    'test_success',
    'test_reasons',
    'test_completion_reason',
    'status',
    'room_failed',
    'error_message',
    'duration_seconds',
    'item_count',
  ],
  campaign_items: [
    ...context,
    'campaign_id',
    'campaign_item_id',
    'campaign_name',
    'status',
    'room_failed',
    'room_error',
    'error_message',
    'duration_seconds',
    'telecom_provider',
    'from_number',
    'to_number',
    'call_sid',
    'url_parameters',
    'user_turn_count',
  ],
  conversations: [
    ...context,
    'event_time_source',
    'event',
    'audio_url',
    'audio_url_expires_at',
    'created_at',
    'start_time',
    'agent_joined_at',
    'duration_seconds',
    'telecom_provider',
    'from_number',
    'to_number',
    'call_sid',
    'campaign_item_id',
    'campaign_id',
    'campaign_name',
    'url_parameters',
    'test_run_id',
    'test_id',
    'test_status',
    'test_success',
    'test_reasons',
    'test_completion_reason',
    'room_failed',
    'room_skip_composite_egress',
    'room_error',
    'status',
    'error_message',
    'item_count',
    'user_turn_count',
    'agent_turn_count',
    'tool_call_count',
    'tool_error_count',
    'interruption_count',
    'handoff_count',
    'e2e_latency_p50',
    'e2e_latency_p95',
    'llm_node_ttft_p50',
    'llm_node_ttft_p95',
    'tts_node_ttfb_p50',
    'tts_node_ttfb_p95',
    'transcription_delay_p50',
    'transcription_delay_p95',
    'end_of_turn_delay_p50',
    'end_of_turn_delay_p95',
    'extra_fields_json',
    'envelope_extra_fields_json',
    'test_eval_result_extra_fields_json',
    'room_metadata_extra_fields_json',
    'received_at',
    'kafka_topic',
    'kafka_partition',
    'kafka_offset',
  ],
}

export const tableNames = Object.keys(tableColumns) as TableName[]
