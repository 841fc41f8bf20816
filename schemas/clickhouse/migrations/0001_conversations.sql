-- Base tables. Every table is a ReplacingMergeTree keyed by what identifies a row within its
-- conversation (never by anything about the delivery), versioned by the delivery: a batch retried
-- after a crash, a message redelivered after a rebalance and a conversation the platform sends
-- twice all collapse to one row, the newest delivery winning. Queries read with FINAL (or the
-- setting final = 1). Inserts also carry an insert_deduplication_token per Kafka offset range, so
-- a batch retried as such leaves no duplicate part at all (non_replicated_deduplication_window).
-- event_time = start_time, else created_at, else received_at: the time every sort key, partition and
-- TTL uses. {database} is replaced by the migration runner.

CREATE TABLE IF NOT EXISTS {database}.conversations
(
    session_id String,
    event_time DateTime64(3, 'UTC'),
    event LowCardinality(String),
    agent_id LowCardinality(String) COMMENT 'empty when the platform sent none',
    agent_name LowCardinality(Nullable(String)),
    audio_url Nullable(String),
    audio_url_expires_at Nullable(DateTime64(3, 'UTC')),
    created_at Nullable(DateTime64(3, 'UTC')),
    start_time Nullable(DateTime64(3, 'UTC')),
    agent_joined_at Nullable(DateTime64(3, 'UTC')),
    duration_seconds Nullable(Float64),
    telecom_provider LowCardinality(Nullable(String)),
    from_number Nullable(String),
    to_number Nullable(String),
    call_sid Nullable(String),
    campaign_item_id Nullable(String),
    campaign_id Nullable(String),
    campaign_name LowCardinality(Nullable(String)),
    url_parameters Map(String, String),
    test_run_id Nullable(String),
    test_id Nullable(String),
    test_status LowCardinality(Nullable(String)),
    test_success Nullable(Bool),
    test_reasons Array(String),
    test_completion_reason LowCardinality(Nullable(String)),
    room_failed Nullable(Bool),
    room_skip_composite_egress Nullable(Bool),
    room_error Nullable(String),
    status LowCardinality(Nullable(String)),
    error_message Nullable(String),
    -- derived per-conversation figures
    item_count UInt32,
    user_turn_count UInt32,
    agent_turn_count UInt32,
    tool_call_count UInt32,
    tool_error_count UInt32,
    interruption_count UInt32,
    handoff_count UInt32,
    e2e_latency_p50 Nullable(Float64),
    e2e_latency_p95 Nullable(Float64),
    llm_node_ttft_p50 Nullable(Float64),
    llm_node_ttft_p95 Nullable(Float64),
    tts_node_ttfb_p50 Nullable(Float64),
    tts_node_ttfb_p95 Nullable(Float64),
    transcription_delay_p50 Nullable(Float64),
    transcription_delay_p95 Nullable(Float64),
    end_of_turn_delay_p50 Nullable(Float64),
    end_of_turn_delay_p95 Nullable(Float64),
    -- fields the Avro schema does not know, per object, as JSON text
    extra_fields_json Nullable(String) COMMENT 'unknown fields of data',
    envelope_extra_fields_json Nullable(String) COMMENT 'unknown fields next to event and data',
    test_eval_result_extra_fields_json Nullable(String),
    room_metadata_extra_fields_json Nullable(String),
    -- ingestion metadata
    source LowCardinality(String),
    received_at Nullable(DateTime64(3, 'UTC')),
    kafka_topic LowCardinality(String),
    kafka_partition UInt32,
    kafka_offset UInt64,
    version UInt64 COMMENT 'received_at in ms (Kafka timestamp if absent): the newest delivery wins',
    inserted_at DateTime64(3, 'UTC') DEFAULT now64(3),
    INDEX session_id_index session_id TYPE bloom_filter GRANULARITY 4,
    INDEX campaign_id_index campaign_id TYPE bloom_filter GRANULARITY 4,
    INDEX test_run_id_index test_run_id TYPE bloom_filter GRANULARITY 4
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(event_time)
ORDER BY (agent_id, event_time, session_id)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS {database}.conversation_items
(
    session_id String,
    item_index UInt32,
    event_time DateTime64(3, 'UTC'),
    agent_id LowCardinality(String),
    agent_name LowCardinality(Nullable(String)),
    campaign_id Nullable(String),
    test_run_id Nullable(String),
    start_time Nullable(DateTime64(3, 'UTC')),
    source LowCardinality(String),
    active_agent_id LowCardinality(String) COMMENT 'the agent speaking at this item: agent_id, or the target of the last handoff before it',
    role LowCardinality(Nullable(String)),
    content Nullable(String),
    kind LowCardinality(Nullable(String)),
    id Nullable(String),
    created_at Nullable(DateTime64(3, 'UTC')),
    interrupted Nullable(Bool),
    transcript_confidence Nullable(Float64),
    started_speaking_at Nullable(DateTime64(3, 'UTC')),
    stopped_speaking_at Nullable(DateTime64(3, 'UTC')),
    transcription_delay Nullable(Float64),
    end_of_turn_delay Nullable(Float64),
    on_user_turn_completed_delay Nullable(Float64),
    llm_node_ttft Nullable(Float64),
    tts_node_ttfb Nullable(Float64),
    e2e_latency Nullable(Float64),
    tool_name LowCardinality(Nullable(String)),
    tool_call_id Nullable(String),
    tool_arguments_json Nullable(String),
    tool_output Nullable(String),
    tool_is_error Nullable(Bool),
    handoff_to_agent_id Nullable(String),
    instructions Nullable(String),
    tools_added Array(String),
    extra_fields_json Nullable(String) COMMENT 'unknown fields of the history item',
    metrics_extra_fields_json Nullable(String) COMMENT 'unknown fields of its metrics',
    version UInt64,
    INDEX session_id_index session_id TYPE bloom_filter GRANULARITY 4
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(event_time)
ORDER BY (agent_id, event_time, session_id, item_index)
SETTINGS non_replicated_deduplication_window = 1000;

-- One row per tool call: the call paired with its output by tool_call_id (an output without a
-- call, or a call without output, still gets its row). call_index is the item_index of the call,
-- or of the output when there was no call.
CREATE TABLE IF NOT EXISTS {database}.tool_calls
(
    session_id String,
    call_index UInt32,
    event_time DateTime64(3, 'UTC'),
    agent_id LowCardinality(String),
    agent_name LowCardinality(Nullable(String)),
    active_agent_id LowCardinality(String),
    campaign_id Nullable(String),
    test_run_id Nullable(String),
    source LowCardinality(String),
    tool_call_id Nullable(String),
    tool_name LowCardinality(Nullable(String)),
    tool_arguments_json Nullable(String),
    call_item_index Nullable(UInt32),
    called_at Nullable(DateTime64(3, 'UTC')),
    output_item_index Nullable(UInt32),
    output_at Nullable(DateTime64(3, 'UTC')),
    tool_output Nullable(String),
    tool_is_error Nullable(Bool),
    duration_seconds Nullable(Float64) COMMENT 'output_at - called_at',
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(event_time)
ORDER BY (agent_id, event_time, session_id, call_index)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS {database}.handoffs
(
    session_id String,
    item_index UInt32,
    event_time DateTime64(3, 'UTC'),
    agent_id LowCardinality(String) COMMENT 'the conversation''s agent',
    agent_name LowCardinality(Nullable(String)),
    from_agent_id LowCardinality(String),
    to_agent_id LowCardinality(String),
    handed_off_at Nullable(DateTime64(3, 'UTC')),
    instructions Nullable(String),
    tools_added Array(String),
    campaign_id Nullable(String),
    test_run_id Nullable(String),
    source LowCardinality(String),
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(event_time)
ORDER BY (agent_id, event_time, session_id, item_index)
SETTINGS non_replicated_deduplication_window = 1000;

-- One row per test conversation (a test of a test run).
CREATE TABLE IF NOT EXISTS {database}.test_results
(
    test_run_id String,
    test_id String,
    session_id String,
    event_time DateTime64(3, 'UTC'),
    agent_id LowCardinality(String),
    agent_name LowCardinality(Nullable(String)),
    test_status LowCardinality(Nullable(String)),
    test_success Nullable(Bool),
    test_reasons Array(String),
    test_completion_reason LowCardinality(Nullable(String)),
    status LowCardinality(Nullable(String)),
    room_failed Nullable(Bool),
    error_message Nullable(String),
    duration_seconds Nullable(Float64),
    item_count UInt32,
    source LowCardinality(String),
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(event_time)
ORDER BY (test_run_id, test_id, session_id)
SETTINGS non_replicated_deduplication_window = 1000;

-- One row per campaign call (campaign item).
CREATE TABLE IF NOT EXISTS {database}.campaign_items
(
    campaign_id String,
    campaign_item_id String,
    session_id String,
    event_time DateTime64(3, 'UTC'),
    campaign_name LowCardinality(Nullable(String)),
    agent_id LowCardinality(String),
    agent_name LowCardinality(Nullable(String)),
    status LowCardinality(Nullable(String)),
    room_failed Nullable(Bool),
    room_error Nullable(String),
    error_message Nullable(String),
    duration_seconds Nullable(Float64),
    telecom_provider LowCardinality(Nullable(String)),
    from_number Nullable(String),
    to_number Nullable(String),
    call_sid Nullable(String),
    url_parameters Map(String, String),
    user_turn_count UInt32,
    source LowCardinality(String),
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(event_time)
ORDER BY (campaign_id, event_time, campaign_item_id, session_id)
SETTINGS non_replicated_deduplication_window = 1000;
