import type { KeyTimeSource } from './conversation-key-time.ts'

// Each ClickHouse table the worker writes, declared once: its columns in insert order with each
// column's TypeScript type. The row types (ConversationRow, ...), the column list of each insert
// (tableColumns, JSONCompactEachRow values in that order) and the table order all derive from it.
// Timestamps are epoch milliseconds (DateTime64(3)); `minute` is epoch seconds (DateTime). Every
// row a builder returns has exactly these columns (a unit test checks it, and an integration test
// checks them against the tables of the migrations).
export type Ms = number

declare const columnType: unique symbol
/** A column's TypeScript type; the marker holds nothing at run time, only the key order matters. */
interface Column<T> {
  readonly [columnType]: T
}
const column = <T>() => ({}) as Column<T>

type RowOf<Columns> = { [Name in keyof Columns]: Columns[Name] extends Column<infer T> ? T : never }

/** What every row of a conversation repeats so that queries filter without joins. */
const conversationContext = {
  session_id: column<string>(),
  event_time: column<Ms>(),
  agent_id: column<string>(),
  agent_name: column<string | null>(),
  source: column<string>(),
  version: column<number>(),
  /** 1: a tombstone, which hides the row of an earlier delivery under the same key (FINAL). */
  is_deleted: column<0 | 1>(),
}

/** Insert order (on one session): the rollup feed and the children first, the conversation row last. */
const tables = {
  /** One conversation's latency values for one agent-minute (the rollup's input). */
  agent_latency_feed: {
    agent_id: column<string>(),
    /** Epoch seconds, start of the minute. */
    minute: column<number>(),
    session_id: column<string>(),
    agent_name: column<string | null>(),
    source: column<string>(),
    version: column<number>(),
    is_deleted: column<0 | 1>(),
    e2e_latency: column<number[]>(),
    llm_node_ttft: column<number[]>(),
    tts_node_ttfb: column<number[]>(),
    transcription_delay: column<number[]>(),
    end_of_turn_delay: column<number[]>(),
    /** The same values of unflagged items only (empty metric_flags), migration 0006. */
    e2e_latency_unflagged: column<number[]>(),
    llm_node_ttft_unflagged: column<number[]>(),
    tts_node_ttfb_unflagged: column<number[]>(),
    transcription_delay_unflagged: column<number[]>(),
    end_of_turn_delay_unflagged: column<number[]>(),
  },
  conversation_items: {
    ...conversationContext,
    item_index: column<number>(),
    campaign_id: column<string | null>(),
    test_run_id: column<string | null>(),
    start_time: column<Ms | null>(),
    active_agent_id: column<string>(),
    role: column<string | null>(),
    content: column<string | null>(),
    kind: column<string | null>(),
    id: column<string | null>(),
    created_at: column<Ms | null>(),
    interrupted: column<boolean | null>(),
    transcript_confidence: column<number | null>(),
    started_speaking_at: column<Ms | null>(),
    stopped_speaking_at: column<Ms | null>(),
    transcription_delay: column<number | null>(),
    end_of_turn_delay: column<number | null>(),
    on_user_turn_completed_delay: column<number | null>(),
    llm_node_ttft: column<number | null>(),
    tts_node_ttfb: column<number | null>(),
    e2e_latency: column<number | null>(),
    tool_name: column<string | null>(),
    tool_call_id: column<string | null>(),
    tool_arguments_json: column<string | null>(),
    tool_output: column<string | null>(),
    tool_is_error: column<boolean | null>(),
    handoff_to_agent_id: column<string | null>(),
    instructions: column<string | null>(),
    tools_added: column<string[]>(),
    extra_fields_json: column<string | null>(),
    metrics_extra_fields_json: column<string | null>(),
    /** Invariants of the metrics that do not hold (metric-quality.ts); the values stay as they came. */
    metric_flags: column<string[]>(),
  },
  tool_calls: {
    ...conversationContext,
    call_index: column<number>(),
    active_agent_id: column<string>(),
    campaign_id: column<string | null>(),
    test_run_id: column<string | null>(),
    tool_call_id: column<string | null>(),
    tool_name: column<string | null>(),
    tool_arguments_json: column<string | null>(),
    call_item_index: column<number | null>(),
    called_at: column<Ms | null>(),
    output_item_index: column<number | null>(),
    output_at: column<Ms | null>(),
    tool_output: column<string | null>(),
    tool_is_error: column<boolean | null>(),
    duration_seconds: column<number | null>(),
  },
  handoffs: {
    ...conversationContext,
    item_index: column<number>(),
    from_agent_id: column<string>(),
    to_agent_id: column<string>(),
    handed_off_at: column<Ms | null>(),
    instructions: column<string | null>(),
    tools_added: column<string[]>(),
    campaign_id: column<string | null>(),
    test_run_id: column<string | null>(),
  },
  test_results: {
    ...conversationContext,
    test_run_id: column<string>(),
    test_id: column<string>(),
    test_status: column<string | null>(),
    test_success: column<boolean | null>(),
    test_reasons: column<string[]>(),
    test_completion_reason: column<string | null>(),
    status: column<string | null>(),
    room_failed: column<boolean | null>(),
    error_message: column<string | null>(),
    duration_seconds: column<number | null>(),
    item_count: column<number>(),
  },
  campaign_items: {
    ...conversationContext,
    campaign_id: column<string>(),
    campaign_item_id: column<string>(),
    campaign_name: column<string | null>(),
    status: column<string | null>(),
    room_failed: column<boolean | null>(),
    room_error: column<string | null>(),
    error_message: column<string | null>(),
    duration_seconds: column<number | null>(),
    telecom_provider: column<string | null>(),
    from_number: column<string | null>(),
    to_number: column<string | null>(),
    call_sid: column<string | null>(),
    url_parameters: column<Record<string, string>>(),
    user_turn_count: column<number>(),
  },
  conversations: {
    ...conversationContext,
    event_time_source: column<KeyTimeSource>(),
    event: column<string>(),
    audio_url: column<string | null>(),
    audio_url_expires_at: column<Ms | null>(),
    created_at: column<Ms | null>(),
    start_time: column<Ms | null>(),
    agent_joined_at: column<Ms | null>(),
    duration_seconds: column<number | null>(),
    telecom_provider: column<string | null>(),
    from_number: column<string | null>(),
    to_number: column<string | null>(),
    call_sid: column<string | null>(),
    campaign_item_id: column<string | null>(),
    campaign_id: column<string | null>(),
    campaign_name: column<string | null>(),
    url_parameters: column<Record<string, string>>(),
    test_run_id: column<string | null>(),
    test_id: column<string | null>(),
    test_status: column<string | null>(),
    test_success: column<boolean | null>(),
    test_reasons: column<string[]>(),
    test_completion_reason: column<string | null>(),
    room_failed: column<boolean | null>(),
    room_skip_composite_egress: column<boolean | null>(),
    room_error: column<string | null>(),
    status: column<string | null>(),
    error_message: column<string | null>(),
    item_count: column<number>(),
    user_turn_count: column<number>(),
    agent_turn_count: column<number>(),
    tool_call_count: column<number>(),
    tool_error_count: column<number>(),
    interruption_count: column<number>(),
    handoff_count: column<number>(),
    /** Items with at least one metric flag. */
    flagged_item_count: column<number>(),
    e2e_latency_p50: column<number | null>(),
    e2e_latency_p95: column<number | null>(),
    llm_node_ttft_p50: column<number | null>(),
    llm_node_ttft_p95: column<number | null>(),
    tts_node_ttfb_p50: column<number | null>(),
    tts_node_ttfb_p95: column<number | null>(),
    transcription_delay_p50: column<number | null>(),
    transcription_delay_p95: column<number | null>(),
    end_of_turn_delay_p50: column<number | null>(),
    end_of_turn_delay_p95: column<number | null>(),
    extra_fields_json: column<string | null>(),
    envelope_extra_fields_json: column<string | null>(),
    test_eval_result_extra_fields_json: column<string | null>(),
    room_metadata_extra_fields_json: column<string | null>(),
    received_at: column<Ms | null>(),
    kafka_topic: column<string>(),
    kafka_partition: column<number>(),
    kafka_offset: column<number>(),
  },
}

export type TableName = keyof typeof tables
export type TableRows = { [Table in TableName]: RowOf<(typeof tables)[Table]>[] }

export type ConversationRow = TableRows['conversations'][number]
export type ConversationItemRow = TableRows['conversation_items'][number]
export type ToolCallRow = TableRows['tool_calls'][number]
export type HandoffRow = TableRows['handoffs'][number]
export type TestResultRow = TableRows['test_results'][number]
export type CampaignItemRow = TableRows['campaign_items'][number]
export type LatencyFeedRow = TableRows['agent_latency_feed'][number]

export const tableNames = Object.keys(tables) as TableName[]

/** Each insert's columns, in the order its values go. */
export const tableColumns = Object.fromEntries(
  tableNames.map((table) => [table, Object.keys(tables[table])]),
) as unknown as { [Table in TableName]: ReadonlyArray<keyof TableRows[Table][number] & string> }

export const emptyTableRows = (): TableRows =>
  Object.fromEntries(tableNames.map((table) => [table, []])) as unknown as TableRows
