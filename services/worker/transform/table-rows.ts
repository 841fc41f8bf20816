import type {
  NativeColumn,
  NativeType,
  NativeTypeOf,
} from '../../../core/clickhouse/clickhouse-native-format.ts'
import type { KeyTimeSource } from './conversation-key-time.ts'

// Each ClickHouse table the worker writes, declared once: its columns in insert order, each with its
// TypeScript type and the ClickHouse type it is sent as (Native format). The row types
// (ConversationRow, ...), each insert's columns and their wire types (tableColumns,
// tableNativeColumns) and the table order all derive from it. A wire type is the table's column type
// with LowCardinality left out (ClickHouse converts on input); the TypeScript type admits only the
// wire types that can carry it. Timestamps are epoch milliseconds (DateTime64(3)); `minute` is epoch
// seconds (DateTime). Every row a builder returns has exactly these columns (a unit test checks it),
// and an integration test checks names and wire types against the tables of the migrations.
export type Ms = number

declare const columnType: unique symbol
/**
 * A column: its TypeScript type (a marker that holds nothing at run time) and its wire type; null for
 * a field the row carries for the write but ClickHouse does not store (`routing`).
 */
interface Column<T> {
  readonly [columnType]: T
  readonly type: NativeType | null
}
const column = <T>(type: NativeTypeOf<T>) => ({ type }) as Column<T>
/**
 * Which delivery of which conversation brought a row of a table that stores no conversation (the
 * agent versions): the write treats the row as that conversation's (first delivery or not,
 * forgotten, superseded), but the table does not keep it.
 */
const routing = <T>() => ({ type: null }) as Column<T>

type RowOf<Columns> = { [Name in keyof Columns]: Columns[Name] extends Column<infer T> ? T : never }

/** What every row of a conversation repeats so that queries filter without joins. */
const conversationContext = {
  session_id: column<string>('String'),
  event_time: column<Ms>("DateTime64(3, 'UTC')"),
  agent_id: column<string>('String'),
  agent_name: column<string | null>('Nullable(String)'),
  source: column<string>('String'),
  version: column<number>('UInt64'),
  /** 1: a tombstone, which hides the row of an earlier delivery under the same key (FINAL). */
  is_deleted: column<0 | 1>('UInt8'),
}

/** Turn-taking of a conversation (migration 0018, turn-taking.ts): NULL without measurable speech. */
const turnTaking = {
  /** The dead-air threshold (DEAD_AIR_SECONDS) the figures were computed with. */
  dead_air_threshold_ms: column<number | null>('Nullable(UInt32)'),
  agent_talk_ms: column<number | null>('Nullable(UInt32)'),
  caller_talk_ms: column<number | null>('Nullable(UInt32)'),
  talk_ratio: column<number | null>('Nullable(Float64)'),
  silence_ms: column<number | null>('Nullable(UInt32)'),
  dead_air_count: column<number | null>('Nullable(UInt32)'),
  longest_silence_ms: column<number | null>('Nullable(UInt32)'),
  caller_barge_ins: column<number | null>('Nullable(UInt32)'),
  barge_ins_yielded: column<number | null>('Nullable(UInt32)'),
  agent_cut_ins: column<number | null>('Nullable(UInt32)'),
  overlap_ms: column<number | null>('Nullable(UInt32)'),
  first_word_ms: column<number | null>('Nullable(Float64)'),
  response_turns: column<number | null>('Nullable(UInt32)'),
  response_gap_p50_ms: column<number | null>('Nullable(Float64)'),
  response_gap_p95_ms: column<number | null>('Nullable(Float64)'),
  gap_e2e_disagreements: column<number | null>('Nullable(UInt32)'),
  /** Speaking items left out of the turn-taking figures (flagged speech, no stop, a side overlapping itself). */
  speech_left_out: column<number>('UInt32'),
}
/** Its columns: what only the worker's transform computes (the ClickHouse-side route of the benchmarks does not). */
export const turnTakingColumns = Object.keys(turnTaking)

/** The agent configuration a conversation ran (migration 0019, agent-config.ts): NULL when it shows none. */
const agentConfig = {
  config_fingerprint: column<string | null>('Nullable(String)'),
}
/** Its columns and table: computed only by the worker's transform, like the turn-taking columns. */
export const agentConfigColumns = Object.keys(agentConfig)
export const agentConfigTables = ['agent_versions']

/** Where the conversation came from (migration 0020): the record's origin, 'webhook' when it has none. */
const origin = {
  origin_kind: column<string>('String'),
  origin_framework: column<string | null>('Nullable(String)'),
  origin_framework_version: column<string | null>('Nullable(String)'),
  origin_mapping: column<string | null>('Nullable(String)'),
  origin_trace_id: column<string | null>('Nullable(String)'),
  origin_complete: column<boolean | null>('Nullable(Bool)'),
}

/** Insert order (on one session): the rollup feed and the children first, the conversation row last. */
const tables = {
  /** One conversation's latency values for one agent-minute (the rollup's input). */
  agent_latency_feed: {
    agent_id: column<string>('String'),
    /** Epoch seconds, start of the minute. */
    minute: column<number>("DateTime('UTC')"),
    session_id: column<string>('String'),
    agent_name: column<string | null>('Nullable(String)'),
    source: column<string>('String'),
    version: column<number>('UInt64'),
    is_deleted: column<0 | 1>('UInt8'),
    /** Per metric, the values of unflagged items (empty metric_flags) and of flagged ones (migration 0008). */
    e2e_latency_unflagged: column<number[]>('Array(Float64)'),
    llm_node_ttft_unflagged: column<number[]>('Array(Float64)'),
    tts_node_ttfb_unflagged: column<number[]>('Array(Float64)'),
    transcription_delay_unflagged: column<number[]>('Array(Float64)'),
    end_of_turn_delay_unflagged: column<number[]>('Array(Float64)'),
    e2e_latency_flagged: column<number[]>('Array(Float64)'),
    llm_node_ttft_flagged: column<number[]>('Array(Float64)'),
    tts_node_ttfb_flagged: column<number[]>('Array(Float64)'),
    transcription_delay_flagged: column<number[]>('Array(Float64)'),
    end_of_turn_delay_flagged: column<number[]>('Array(Float64)'),
  },
  /**
   * One row per conversation: what the dashboards break latency down by and its turns' end-to-end
   * latencies (the per-conversation rollup's input, migration 0008).
   */
  conversation_latency_feed: {
    ...conversationContext,
    campaign_id: column<string | null>('Nullable(String)'),
    campaign_name: column<string | null>('Nullable(String)'),
    telecom_provider: column<string | null>('Nullable(String)'),
    test_run_id: column<string | null>('Nullable(String)'),
    /** A conversation of a test run or a test. */
    is_test: column<0 | 1>('UInt8'),
    status: column<string | null>('Nullable(String)'),
    room_failed: column<boolean | null>('Nullable(Bool)'),
    /** Its room failed or the platform sent an error_message. */
    failed: column<0 | 1>('UInt8'),
    e2e_latency_unflagged: column<number[]>('Array(Float64)'),
    e2e_latency_flagged: column<number[]>('Array(Float64)'),
  },
  conversation_items: {
    ...conversationContext,
    item_index: column<number>('UInt32'),
    campaign_id: column<string | null>('Nullable(String)'),
    test_run_id: column<string | null>('Nullable(String)'),
    start_time: column<Ms | null>("Nullable(DateTime64(3, 'UTC'))"),
    active_agent_id: column<string>('String'),
    role: column<string | null>('Nullable(String)'),
    content: column<string | null>('Nullable(String)'),
    kind: column<string | null>('Nullable(String)'),
    id: column<string | null>('Nullable(String)'),
    created_at: column<Ms | null>("Nullable(DateTime64(3, 'UTC'))"),
    interrupted: column<boolean | null>('Nullable(Bool)'),
    transcript_confidence: column<number | null>('Nullable(Float64)'),
    started_speaking_at: column<Ms | null>("Nullable(DateTime64(3, 'UTC'))"),
    stopped_speaking_at: column<Ms | null>("Nullable(DateTime64(3, 'UTC'))"),
    transcription_delay: column<number | null>('Nullable(Float64)'),
    end_of_turn_delay: column<number | null>('Nullable(Float64)'),
    on_user_turn_completed_delay: column<number | null>('Nullable(Float64)'),
    llm_node_ttft: column<number | null>('Nullable(Float64)'),
    tts_node_ttfb: column<number | null>('Nullable(Float64)'),
    e2e_latency: column<number | null>('Nullable(Float64)'),
    tool_name: column<string | null>('Nullable(String)'),
    tool_call_id: column<string | null>('Nullable(String)'),
    tool_arguments_json: column<string | null>('Nullable(String)'),
    tool_output: column<string | null>('Nullable(String)'),
    tool_is_error: column<boolean | null>('Nullable(Bool)'),
    handoff_to_agent_id: column<string | null>('Nullable(String)'),
    instructions: column<string | null>('Nullable(String)'),
    tools_added: column<string[]>('Array(String)'),
    extra_fields_json: column<string | null>('Nullable(String)'),
    metrics_extra_fields_json: column<string | null>('Nullable(String)'),
    /** Invariants of the metrics that do not hold (metric-quality.ts); the values stay as they came. */
    metric_flags: column<string[]>('Array(String)'),
  },
  tool_calls: {
    ...conversationContext,
    call_index: column<number>('UInt32'),
    active_agent_id: column<string>('String'),
    campaign_id: column<string | null>('Nullable(String)'),
    test_run_id: column<string | null>('Nullable(String)'),
    tool_call_id: column<string | null>('Nullable(String)'),
    tool_name: column<string | null>('Nullable(String)'),
    tool_arguments_json: column<string | null>('Nullable(String)'),
    call_item_index: column<number | null>('Nullable(UInt32)'),
    called_at: column<Ms | null>("Nullable(DateTime64(3, 'UTC'))"),
    output_item_index: column<number | null>('Nullable(UInt32)'),
    output_at: column<Ms | null>("Nullable(DateTime64(3, 'UTC'))"),
    tool_output: column<string | null>('Nullable(String)'),
    tool_is_error: column<boolean | null>('Nullable(Bool)'),
    duration_seconds: column<number | null>('Nullable(Float64)'),
  },
  handoffs: {
    ...conversationContext,
    item_index: column<number>('UInt32'),
    from_agent_id: column<string>('String'),
    to_agent_id: column<string>('String'),
    handed_off_at: column<Ms | null>("Nullable(DateTime64(3, 'UTC'))"),
    instructions: column<string | null>('Nullable(String)'),
    tools_added: column<string[]>('Array(String)'),
    campaign_id: column<string | null>('Nullable(String)'),
    test_run_id: column<string | null>('Nullable(String)'),
  },
  test_results: {
    ...conversationContext,
    test_run_id: column<string>('String'),
    test_id: column<string>('String'),
    test_status: column<string | null>('Nullable(String)'),
    test_success: column<boolean | null>('Nullable(Bool)'),
    test_reasons: column<string[]>('Array(String)'),
    test_completion_reason: column<string | null>('Nullable(String)'),
    status: column<string | null>('Nullable(String)'),
    room_failed: column<boolean | null>('Nullable(Bool)'),
    error_message: column<string | null>('Nullable(String)'),
    duration_seconds: column<number | null>('Nullable(Float64)'),
    item_count: column<number>('UInt32'),
  },
  campaign_items: {
    ...conversationContext,
    campaign_id: column<string>('String'),
    campaign_item_id: column<string>('String'),
    campaign_name: column<string | null>('Nullable(String)'),
    status: column<string | null>('Nullable(String)'),
    room_failed: column<boolean | null>('Nullable(Bool)'),
    room_error: column<string | null>('Nullable(String)'),
    error_message: column<string | null>('Nullable(String)'),
    duration_seconds: column<number | null>('Nullable(Float64)'),
    telecom_provider: column<string | null>('Nullable(String)'),
    from_number: column<string | null>('Nullable(String)'),
    to_number: column<string | null>('Nullable(String)'),
    call_sid: column<string | null>('Nullable(String)'),
    url_parameters: column<Record<string, string>>('Map(String, String)'),
    user_turn_count: column<number>('UInt32'),
  },
  /**
   * One row per agent and configuration (migration 0019): what the fingerprint stands for, so that
   * what changed between two versions can be shown. The same for every conversation that ran it.
   */
  agent_versions: {
    session_id: routing<string>(),
    version: routing<number>(),
    agent_id: column<string>('String'),
    config_fingerprint: column<string>('String'),
    instructions: column<string>('String'),
    update_instructions: column<string[]>('Array(String)'),
    tools: column<string[]>('Array(String)'),
    handoff_targets: column<string[]>('Array(String)'),
  },
  conversations: {
    ...conversationContext,
    event_time_source: column<KeyTimeSource>('String'),
    event: column<string>('String'),
    audio_url: column<string | null>('Nullable(String)'),
    audio_url_expires_at: column<Ms | null>("Nullable(DateTime64(3, 'UTC'))"),
    created_at: column<Ms | null>("Nullable(DateTime64(3, 'UTC'))"),
    start_time: column<Ms | null>("Nullable(DateTime64(3, 'UTC'))"),
    agent_joined_at: column<Ms | null>("Nullable(DateTime64(3, 'UTC'))"),
    duration_seconds: column<number | null>('Nullable(Float64)'),
    telecom_provider: column<string | null>('Nullable(String)'),
    from_number: column<string | null>('Nullable(String)'),
    to_number: column<string | null>('Nullable(String)'),
    call_sid: column<string | null>('Nullable(String)'),
    campaign_item_id: column<string | null>('Nullable(String)'),
    campaign_id: column<string | null>('Nullable(String)'),
    campaign_name: column<string | null>('Nullable(String)'),
    url_parameters: column<Record<string, string>>('Map(String, String)'),
    test_run_id: column<string | null>('Nullable(String)'),
    test_id: column<string | null>('Nullable(String)'),
    test_status: column<string | null>('Nullable(String)'),
    test_success: column<boolean | null>('Nullable(Bool)'),
    test_reasons: column<string[]>('Array(String)'),
    test_completion_reason: column<string | null>('Nullable(String)'),
    room_failed: column<boolean | null>('Nullable(Bool)'),
    room_skip_composite_egress: column<boolean | null>('Nullable(Bool)'),
    room_error: column<string | null>('Nullable(String)'),
    status: column<string | null>('Nullable(String)'),
    error_message: column<string | null>('Nullable(String)'),
    item_count: column<number>('UInt32'),
    user_turn_count: column<number>('UInt32'),
    agent_turn_count: column<number>('UInt32'),
    tool_call_count: column<number>('UInt32'),
    tool_error_count: column<number>('UInt32'),
    interruption_count: column<number>('UInt32'),
    handoff_count: column<number>('UInt32'),
    /** Items with at least one metric flag. */
    flagged_item_count: column<number>('UInt32'),
    e2e_latency_p50: column<number | null>('Nullable(Float64)'),
    e2e_latency_p95: column<number | null>('Nullable(Float64)'),
    llm_node_ttft_p50: column<number | null>('Nullable(Float64)'),
    llm_node_ttft_p95: column<number | null>('Nullable(Float64)'),
    tts_node_ttfb_p50: column<number | null>('Nullable(Float64)'),
    tts_node_ttfb_p95: column<number | null>('Nullable(Float64)'),
    transcription_delay_p50: column<number | null>('Nullable(Float64)'),
    transcription_delay_p95: column<number | null>('Nullable(Float64)'),
    end_of_turn_delay_p50: column<number | null>('Nullable(Float64)'),
    end_of_turn_delay_p95: column<number | null>('Nullable(Float64)'),
    ...turnTaking,
    ...agentConfig,
    ...origin,
    extra_fields_json: column<string | null>('Nullable(String)'),
    envelope_extra_fields_json: column<string | null>('Nullable(String)'),
    test_eval_result_extra_fields_json: column<string | null>('Nullable(String)'),
    room_metadata_extra_fields_json: column<string | null>('Nullable(String)'),
    received_at: column<Ms | null>("Nullable(DateTime64(3, 'UTC'))"),
    kafka_topic: column<string>('String'),
    kafka_partition: column<number>('UInt32'),
    kafka_offset: column<number>('UInt64'),
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
export type AgentVersionRow = TableRows['agent_versions'][number]
export type LatencyFeedRow = TableRows['agent_latency_feed'][number]
export type ConversationLatencyFeedRow = TableRows['conversation_latency_feed'][number]

/** The columns every row of a conversation repeats (all tables but the agent-minute feed, which has most). */
export type ContextColumns = RowOf<typeof conversationContext>

export const tableNames = Object.keys(tables) as TableName[]

/** Each table's row fields: its columns and the routing fields it carries for the write. */
export const tableFields = Object.fromEntries(
  tableNames.map((table) => [table, Object.keys(tables[table])]),
) as unknown as { [Table in TableName]: ReadonlyArray<keyof TableRows[Table][number] & string> }

const storedColumns = (table: TableName) =>
  Object.entries(tables[table] as Record<string, Column<unknown>>).filter(
    (entry): entry is [string, Column<unknown> & { type: NativeType }] => entry[1].type !== null,
  )

/** Each insert's columns, in the order its values go. */
export const tableColumns = Object.fromEntries(
  tableNames.map((table) => [table, storedColumns(table).map(([name]) => name)]),
) as unknown as { [Table in TableName]: ReadonlyArray<keyof TableRows[Table][number] & string> }

/** Each insert's columns with their wire types, in the order of tableColumns. */
export const tableNativeColumns = Object.fromEntries(
  tableNames.map((table) => [
    table,
    storedColumns(table).map(([name, { type }]): NativeColumn => ({ name, type })),
  ]),
) as unknown as { [Table in TableName]: readonly NativeColumn[] }

export const emptyTableRows = (): TableRows =>
  Object.fromEntries(tableNames.map((table) => [table, []])) as unknown as TableRows
