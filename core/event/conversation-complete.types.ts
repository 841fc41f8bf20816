// Generated from schemas/avro/conversation-complete.v1.avsc by `npm run generate`. Do not edit.
// The platform payload: every field but data.session_id may be absent; unknown fields are kept.
// Origin: ingestion metadata of a conversation assembled from OTLP spans (the envelope's origin).

export interface ConversationCompleteEvent {
  event: string
  data: ConversationData
  [unknownField: string]: unknown
}

export interface ConversationData {
  session_id: string
  agent_id?: string | null
  agent_name?: string | null
  audio_url?: string | null
  audio_url_expires_at?: string | null
  created_at?: string | null
  start_time?: string | null
  agent_joined_at?: string | null
  duration_seconds?: number | null
  history?: HistoryItem[] | null
  telecom_provider?: string | null
  from_number?: string | null
  to_number?: string | null
  call_sid?: string | null
  campaign_item_id?: string | null
  campaign_id?: string | null
  campaign_name?: string | null
  url_parameters?: Record<string, string> | null
  test_run_id?: string | null
  test_id?: string | null
  test_status?: string | null
  test_eval_result?: TestEvalResult | null
  room_metadata?: RoomMetadata | null
  status?: string | null
  error_message?: string | null
  [unknownField: string]: unknown
}

export interface HistoryItem {
  role?: string | null
  content?: string | null
  kind?: string | null
  id?: string | null
  created_at?: string | null
  interrupted?: boolean | null
  transcript_confidence?: number | null
  metrics?: ItemMetrics | null
  tool_name?: string | null
  tool_call_id?: string | null
  tool_arguments_json?: string | null
  tool_output?: string | null
  tool_is_error?: boolean | null
  handoff_to_agent_id?: string | null
  instructions?: string | null
  tools_added?: string[] | null
  [unknownField: string]: unknown
}

export interface ItemMetrics {
  started_speaking_at?: string | null
  stopped_speaking_at?: string | null
  transcription_delay?: number | null
  end_of_turn_delay?: number | null
  on_user_turn_completed_delay?: number | null
  llm_node_ttft?: number | null
  tts_node_ttfb?: number | null
  e2e_latency?: number | null
  [unknownField: string]: unknown
}

export interface TestEvalResult {
  success?: boolean | null
  reasons?: string[] | null
  completion_reason?: string | null
  [unknownField: string]: unknown
}

export interface RoomMetadata {
  failed?: boolean | null
  skipCompositeEgress?: boolean | null
  error?: string | null
  [unknownField: string]: unknown
}

export interface Origin {
  kind: string
  framework?: string | null
  framework_version?: string | null
  mapping?: string | null
  trace_id?: string | null
  complete?: boolean | null
  [unknownField: string]: unknown
}
