-- The ClickHouse-side route (#12), a prototype measured by the benchmarks, not a migration: Kafka
-- message bytes as they are (Avro in the Confluent wire format, read with FORMAT AvroConfluent and
-- the registry's ccompat URL as format_avro_schema_registry_url) land in `conversation_landing`,
-- and materialized views flatten them into the project's tables (migrations 0001..0016), doing in
-- SQL what services/worker/transform/conversation-rows.ts does in JS:
--   conversation_landing  (Null, or ENGINE = Kafka for ClickHouse's own consumer)
--     -> conversation_flat_mv -> conversation_flat (Null: every timestamp parsed once, the key time,
--        the agent speaking at each item, each item's metric flags, the tool-call pairing)
--          -> conversations_mv, conversation_items_mv, tool_calls_mv, handoffs_mv,
--             test_results_mv, campaign_items_mv, agent_latency_feed_mv and
--             conversation_latency_feed_mv (-> the rollups' own views of migration 0008:
--             agent_latency_minute, conversation_latency with 0014's bands)
--   agent_latency_feed -> agent_latency_hour_touched_mv; agent_latency_hour_mv (refreshable, every
--   second) recomputes the touched agent-hours of agent_latency_hour (migration 0013)
-- Placeholders, replaced by bench/clickhouse-side/clickhouse-side-sql.ts: {database};
-- {landing_columns} (the event's Avro schema as AvroConfluent reads it: landing-columns.ts);
-- {landing_engine} (Null, or Kafka with its settings); {kafka_topic}, {kafka_partition},
-- {kafka_offset}, {kafka_timestamp_ms}: the Kafka engine's virtual columns (_topic, _partition,
-- _offset, toUnixTimestamp64Milli(_timestamp_ms)), or constants when the bytes arrive by INSERT
-- (they are not in the bytes); {hour_recompute}: the hour rollup's recompute of the agent-hours
-- touched since the last one (recomputeSelect of core/clickhouse/latency-hour-rollup.ts).
--
-- Where this differs from the JS transform (bench/results/worker.md lists it too):
--  * timestamps: parseDateTime64BestEffortOrNull, not core/event/storable-timestamp.ts. A value the
--    JS refuses (no zone, Feb 31, out of range, > 9 fraction digits) is a TransformError there (the
--    message goes to the DLQ); here it is stored as NULL or read as UTC — silently.
--  * Float64 metrics: NaN/Infinity are stored; the JS refuses them (finiteNumber, DLQ). Both store
--    the measured values to Float32's precision (migration 0016): here toFloat32 at every read of
--    one, which makes a magnitude beyond Float32's range infinite; the JS keeps such a value.
--  * an empty data.session_id is stored; the JS refuses it.
--  * test_results row: the JS writes one when test_eval_result is present; AvroConfluent reads a
--    null record as a tuple of nulls, so here a test_eval_result whose fields are all null/empty
--    counts as absent (conversations.test_* columns are the same either way).
--  * version without received_at: the Kafka message timestamp with the Kafka engine, 0 by INSERT.
--  * kafka_topic / kafka_partition / kafka_offset: real with the Kafka engine, '' / 0 / 0 by INSERT.
--  * re-deliveries: no tombstones (is_deleted = 1 rows for the items, tool calls, handoffs, rows of
--    other partitions of an earlier delivery — services/worker/redelivery-plan.ts reads the stored
--    conversation first): a view sees one message, never what is stored. A conversation delivered
--    again with fewer items keeps the extra items of the earlier delivery under FINAL. Two
--    deliveries of one conversation in one insert block share a rollup feed row (GROUP BY session
--    and minute); the JS keeps the newest delivery only.
--  * exactly once: an INSERT carries the token its caller names (bench/route-ab.ts: one per batch); the
--    Kafka engine has no token per offset range, a view that fails makes its siblings insert again
--    on retry, and a rebalance re-reads.
--  * poison messages: no dead-letter topic; a message the format cannot read fails the insert
--    (kafka_handle_error_mode = 'default' blocks the Kafka table on it).
-- Everything else is meant to be exact, and is on the fixtures and generated conversations that
-- bench/route-ab.ts compares row by row: metric flags, the per-conversation
-- percentiles (type 7 written out as latency-percentiles.ts computes it), active agents, handoffs,
-- the key time's fallbacks, the tool-call pairing.

CREATE TABLE IF NOT EXISTS {database}.conversation_landing
(
{landing_columns}
)
ENGINE = {landing_engine};

-- One row per message with what several tables need, computed once: the landing's columns (the
-- message as read; `source` keeps its Nullable type, the view stores it with '' for NULL), then the
-- rest. Per-item arrays are in history order (1-based in SQL, item_index = position - 1).
CREATE TABLE IF NOT EXISTS {database}.conversation_flat AS {database}.conversation_landing ENGINE = Null;

ALTER TABLE {database}.conversation_flat
    ADD COLUMN IF NOT EXISTS envelope_extra_fields_json Nullable(String),
    ADD COLUMN IF NOT EXISTS kafka_topic String,
    ADD COLUMN IF NOT EXISTS kafka_partition UInt32,
    ADD COLUMN IF NOT EXISTS kafka_offset UInt64,
    -- the context every row repeats (conversation-rows.ts `context`)
    ADD COLUMN IF NOT EXISTS session_id String,
    ADD COLUMN IF NOT EXISTS agent_id String,
    ADD COLUMN IF NOT EXISTS agent_name Nullable(String),
    ADD COLUMN IF NOT EXISTS version UInt64,
    ADD COLUMN IF NOT EXISTS start_time Nullable(DateTime64(3, 'UTC')),
    ADD COLUMN IF NOT EXISTS created_at Nullable(DateTime64(3, 'UTC')),
    ADD COLUMN IF NOT EXISTS agent_joined_at Nullable(DateTime64(3, 'UTC')),
    ADD COLUMN IF NOT EXISTS event_time DateTime64(3, 'UTC'),
    ADD COLUMN IF NOT EXISTS event_time_source String,
    ADD COLUMN IF NOT EXISTS campaign_id Nullable(String),
    ADD COLUMN IF NOT EXISTS test_run_id Nullable(String),
    -- per-conversation counts
    ADD COLUMN IF NOT EXISTS user_turn_count UInt32,
    ADD COLUMN IF NOT EXISTS agent_turn_count UInt32,
    ADD COLUMN IF NOT EXISTS tool_call_count UInt32,
    ADD COLUMN IF NOT EXISTS tool_error_count UInt32,
    ADD COLUMN IF NOT EXISTS flagged_item_count UInt32,
    -- per item, in history order (ARRAY JOINed beside data.history)
    ADD COLUMN IF NOT EXISTS item_created_at Array(Nullable(DateTime64(3, 'UTC'))),
    ADD COLUMN IF NOT EXISTS item_started_at Array(Nullable(DateTime64(3, 'UTC'))),
    ADD COLUMN IF NOT EXISTS item_stopped_at Array(Nullable(DateTime64(3, 'UTC'))),
    ADD COLUMN IF NOT EXISTS active_agent_ids Array(String),
    ADD COLUMN IF NOT EXISTS item_metric_flags Array(Array(String)),
    -- one per tool_calls row: a call (with its output, if paired) or an output no call claimed
    ADD COLUMN IF NOT EXISTS tool_rows Array(Tuple(
        call_index UInt32,
        active_agent_id String,
        tool_call_id Nullable(String),
        tool_name Nullable(String),
        tool_arguments_json Nullable(String),
        call_item_index Nullable(UInt32),
        called_at Nullable(DateTime64(3, 'UTC')),
        output_item_index Nullable(UInt32),
        output_at Nullable(DateTime64(3, 'UTC')),
        tool_output Nullable(String),
        tool_is_error Nullable(Bool)));

-- Views that ARRAY JOIN every per-item array they read beside data.history: an array indexed
-- after ARRAY JOIN (or captured by a lambda) is copied once per item, which cost gigabytes.
CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.conversation_items_mv TO {database}.conversation_items AS
SELECT
    session_id, toUInt32(p - 1) AS item_index, event_time, agent_id, agent_name,
    campaign_id, test_run_id, start_time, source,
    active AS active_agent_id,
    h.role AS role, h.content AS content, h.kind AS kind, h.id AS id,
    created AS created_at, h.interrupted AS interrupted,
    toFloat64(toFloat32(h.transcript_confidence)) AS transcript_confidence,
    started AS started_speaking_at, stopped AS stopped_speaking_at,
    toFloat64(toFloat32(h.metrics.transcription_delay)) AS transcription_delay,
    toFloat64(toFloat32(h.metrics.end_of_turn_delay)) AS end_of_turn_delay,
    toFloat64(toFloat32(h.metrics.on_user_turn_completed_delay)) AS on_user_turn_completed_delay,
    toFloat64(toFloat32(h.metrics.llm_node_ttft)) AS llm_node_ttft,
    toFloat64(toFloat32(h.metrics.tts_node_ttfb)) AS tts_node_ttfb,
    toFloat64(toFloat32(h.metrics.e2e_latency)) AS e2e_latency,
    h.tool_name AS tool_name, h.tool_call_id AS tool_call_id,
    h.tool_arguments_json AS tool_arguments_json, h.tool_output AS tool_output,
    h.tool_is_error AS tool_is_error, h.handoff_to_agent_id AS handoff_to_agent_id,
    h.instructions AS instructions, h.tools_added AS tools_added,
    h.extra_fields_json AS extra_fields_json,
    h.metrics.extra_fields_json AS metrics_extra_fields_json,
    flags AS metric_flags,
    version, 0 AS is_deleted
FROM {database}.conversation_flat
ARRAY JOIN data.history AS h, arrayEnumerate(data.history) AS p, active_agent_ids AS active,
    item_created_at AS created, item_started_at AS started, item_stopped_at AS stopped,
    item_metric_flags AS flags;

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.handoffs_mv TO {database}.handoffs AS
SELECT
    session_id, toUInt32(p - 1) AS item_index, event_time, agent_id, agent_name,
    active AS from_agent_id, assumeNotNull(h.handoff_to_agent_id) AS to_agent_id,
    created AS handed_off_at, h.instructions AS instructions, h.tools_added AS tools_added,
    campaign_id, test_run_id, source, version, 0 AS is_deleted
FROM {database}.conversation_flat
ARRAY JOIN data.history AS h, arrayEnumerate(data.history) AS p, active_agent_ids AS active,
    item_created_at AS created
WHERE h.handoff_to_agent_id IS NOT NULL;

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.tool_calls_mv TO {database}.tool_calls AS
SELECT
    session_id, t.call_index AS call_index, event_time, agent_id, agent_name,
    t.active_agent_id AS active_agent_id, campaign_id, test_run_id, source,
    t.tool_call_id AS tool_call_id, t.tool_name AS tool_name,
    t.tool_arguments_json AS tool_arguments_json,
    t.call_item_index AS call_item_index, t.called_at AS called_at,
    t.output_item_index AS output_item_index, t.output_at AS output_at,
    t.tool_output AS tool_output, t.tool_is_error AS tool_is_error,
    (toUnixTimestamp64Milli(t.output_at) - toUnixTimestamp64Milli(t.called_at)) / 1000 AS duration_seconds,
    version, 0 AS is_deleted
FROM {database}.conversation_flat
ARRAY JOIN tool_rows AS t;

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.conversations_mv TO {database}.conversations AS
WITH
    data.history AS history,
    arrayMap(v -> assumeNotNull(v), arrayFilter(v -> v IS NOT NULL, arrayMap(h -> toFloat64(toFloat32(h.metrics.e2e_latency)), history))) AS e2e,
    arrayMap(v -> assumeNotNull(v), arrayFilter(v -> v IS NOT NULL, arrayMap(h -> toFloat64(toFloat32(h.metrics.llm_node_ttft)), history))) AS ttft,
    arrayMap(v -> assumeNotNull(v), arrayFilter(v -> v IS NOT NULL, arrayMap(h -> toFloat64(toFloat32(h.metrics.tts_node_ttfb)), history))) AS ttfb,
    arrayMap(v -> assumeNotNull(v), arrayFilter(v -> v IS NOT NULL, arrayMap(h -> toFloat64(toFloat32(h.metrics.transcription_delay)), history))) AS transcription,
    arrayMap(v -> assumeNotNull(v), arrayFilter(v -> v IS NOT NULL, arrayMap(h -> toFloat64(toFloat32(h.metrics.end_of_turn_delay)), history))) AS end_of_turn
SELECT
    session_id, event_time, event_time_source, event, agent_id, agent_name,
    data.audio_url AS audio_url,
    parseDateTime64BestEffortOrNull(data.audio_url_expires_at, 3, 'UTC') AS audio_url_expires_at,
    created_at, start_time, agent_joined_at,
    data.duration_seconds AS duration_seconds,
    data.telecom_provider AS telecom_provider, data.from_number AS from_number,
    data.to_number AS to_number, data.call_sid AS call_sid,
    data.campaign_item_id AS campaign_item_id, campaign_id,
    data.campaign_name AS campaign_name, data.url_parameters AS url_parameters,
    test_run_id, data.test_id AS test_id, data.test_status AS test_status,
    data.test_eval_result.success AS test_success,
    data.test_eval_result.reasons AS test_reasons,
    data.test_eval_result.completion_reason AS test_completion_reason,
    data.room_metadata.failed AS room_failed,
    data.room_metadata.skipCompositeEgress AS room_skip_composite_egress,
    data.room_metadata.error AS room_error,
    data.status AS status, data.error_message AS error_message,
    length(history) AS item_count,
    user_turn_count, agent_turn_count, tool_call_count, tool_error_count,
    arrayCount(h -> h.interrupted = true, history) AS interruption_count,
    arrayCount(h -> h.handoff_to_agent_id IS NOT NULL, history) AS handoff_count,
    flagged_item_count,
    if(empty(e2e), NULL, arraySort(e2e)[toUInt32(floor(((length(e2e) - 1) * 0.5))) + 1] + (arraySort(e2e)[least(toUInt32(floor(((length(e2e) - 1) * 0.5))) + 2, length(e2e))] - arraySort(e2e)[toUInt32(floor(((length(e2e) - 1) * 0.5))) + 1]) * (((length(e2e) - 1) * 0.5) - floor(((length(e2e) - 1) * 0.5)))) AS e2e_latency_p50,
    if(empty(e2e), NULL, arraySort(e2e)[toUInt32(floor(((length(e2e) - 1) * 0.95))) + 1] + (arraySort(e2e)[least(toUInt32(floor(((length(e2e) - 1) * 0.95))) + 2, length(e2e))] - arraySort(e2e)[toUInt32(floor(((length(e2e) - 1) * 0.95))) + 1]) * (((length(e2e) - 1) * 0.95) - floor(((length(e2e) - 1) * 0.95)))) AS e2e_latency_p95,
    if(empty(ttft), NULL, arraySort(ttft)[toUInt32(floor(((length(ttft) - 1) * 0.5))) + 1] + (arraySort(ttft)[least(toUInt32(floor(((length(ttft) - 1) * 0.5))) + 2, length(ttft))] - arraySort(ttft)[toUInt32(floor(((length(ttft) - 1) * 0.5))) + 1]) * (((length(ttft) - 1) * 0.5) - floor(((length(ttft) - 1) * 0.5)))) AS llm_node_ttft_p50,
    if(empty(ttft), NULL, arraySort(ttft)[toUInt32(floor(((length(ttft) - 1) * 0.95))) + 1] + (arraySort(ttft)[least(toUInt32(floor(((length(ttft) - 1) * 0.95))) + 2, length(ttft))] - arraySort(ttft)[toUInt32(floor(((length(ttft) - 1) * 0.95))) + 1]) * (((length(ttft) - 1) * 0.95) - floor(((length(ttft) - 1) * 0.95)))) AS llm_node_ttft_p95,
    if(empty(ttfb), NULL, arraySort(ttfb)[toUInt32(floor(((length(ttfb) - 1) * 0.5))) + 1] + (arraySort(ttfb)[least(toUInt32(floor(((length(ttfb) - 1) * 0.5))) + 2, length(ttfb))] - arraySort(ttfb)[toUInt32(floor(((length(ttfb) - 1) * 0.5))) + 1]) * (((length(ttfb) - 1) * 0.5) - floor(((length(ttfb) - 1) * 0.5)))) AS tts_node_ttfb_p50,
    if(empty(ttfb), NULL, arraySort(ttfb)[toUInt32(floor(((length(ttfb) - 1) * 0.95))) + 1] + (arraySort(ttfb)[least(toUInt32(floor(((length(ttfb) - 1) * 0.95))) + 2, length(ttfb))] - arraySort(ttfb)[toUInt32(floor(((length(ttfb) - 1) * 0.95))) + 1]) * (((length(ttfb) - 1) * 0.95) - floor(((length(ttfb) - 1) * 0.95)))) AS tts_node_ttfb_p95,
    if(empty(transcription), NULL, arraySort(transcription)[toUInt32(floor(((length(transcription) - 1) * 0.5))) + 1] + (arraySort(transcription)[least(toUInt32(floor(((length(transcription) - 1) * 0.5))) + 2, length(transcription))] - arraySort(transcription)[toUInt32(floor(((length(transcription) - 1) * 0.5))) + 1]) * (((length(transcription) - 1) * 0.5) - floor(((length(transcription) - 1) * 0.5)))) AS transcription_delay_p50,
    if(empty(transcription), NULL, arraySort(transcription)[toUInt32(floor(((length(transcription) - 1) * 0.95))) + 1] + (arraySort(transcription)[least(toUInt32(floor(((length(transcription) - 1) * 0.95))) + 2, length(transcription))] - arraySort(transcription)[toUInt32(floor(((length(transcription) - 1) * 0.95))) + 1]) * (((length(transcription) - 1) * 0.95) - floor(((length(transcription) - 1) * 0.95)))) AS transcription_delay_p95,
    if(empty(end_of_turn), NULL, arraySort(end_of_turn)[toUInt32(floor(((length(end_of_turn) - 1) * 0.5))) + 1] + (arraySort(end_of_turn)[least(toUInt32(floor(((length(end_of_turn) - 1) * 0.5))) + 2, length(end_of_turn))] - arraySort(end_of_turn)[toUInt32(floor(((length(end_of_turn) - 1) * 0.5))) + 1]) * (((length(end_of_turn) - 1) * 0.5) - floor(((length(end_of_turn) - 1) * 0.5)))) AS end_of_turn_delay_p50,
    if(empty(end_of_turn), NULL, arraySort(end_of_turn)[toUInt32(floor(((length(end_of_turn) - 1) * 0.95))) + 1] + (arraySort(end_of_turn)[least(toUInt32(floor(((length(end_of_turn) - 1) * 0.95))) + 2, length(end_of_turn))] - arraySort(end_of_turn)[toUInt32(floor(((length(end_of_turn) - 1) * 0.95))) + 1]) * (((length(end_of_turn) - 1) * 0.95) - floor(((length(end_of_turn) - 1) * 0.95)))) AS end_of_turn_delay_p95,
    data.extra_fields_json AS extra_fields_json,
    envelope_extra_fields_json,
    data.test_eval_result.extra_fields_json AS test_eval_result_extra_fields_json,
    data.room_metadata.extra_fields_json AS room_metadata_extra_fields_json,
    source, received_at, kafka_topic, kafka_partition, kafka_offset, version, 0 AS is_deleted
FROM {database}.conversation_flat;

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.test_results_mv TO {database}.test_results AS
SELECT
    ifNull(test_run_id, '') AS test_run_id, ifNull(data.test_id, '') AS test_id,
    session_id, event_time, agent_id, agent_name,
    data.test_status AS test_status,
    data.test_eval_result.success AS test_success,
    data.test_eval_result.reasons AS test_reasons,
    data.test_eval_result.completion_reason AS test_completion_reason,
    data.status AS status, data.room_metadata.failed AS room_failed,
    data.error_message AS error_message, data.duration_seconds AS duration_seconds,
    length(data.history) AS item_count, source, version, 0 AS is_deleted
FROM {database}.conversation_flat
WHERE data.test_run_id IS NOT NULL OR data.test_id IS NOT NULL OR data.test_status IS NOT NULL
   OR data.test_eval_result.success IS NOT NULL OR notEmpty(data.test_eval_result.reasons)
   OR data.test_eval_result.completion_reason IS NOT NULL OR data.test_eval_result.extra_fields_json IS NOT NULL;

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.campaign_items_mv TO {database}.campaign_items AS
SELECT
    ifNull(campaign_id, '') AS campaign_id, ifNull(data.campaign_item_id, '') AS campaign_item_id,
    session_id, event_time, data.campaign_name AS campaign_name, agent_id, agent_name,
    data.status AS status, data.room_metadata.failed AS room_failed,
    data.room_metadata.error AS room_error, data.error_message AS error_message,
    data.duration_seconds AS duration_seconds, data.telecom_provider AS telecom_provider,
    data.from_number AS from_number, data.to_number AS to_number, data.call_sid AS call_sid,
    data.url_parameters AS url_parameters,
    user_turn_count, source, version, 0 AS is_deleted
FROM {database}.conversation_flat
WHERE data.campaign_id IS NOT NULL OR data.campaign_item_id IS NOT NULL;

-- The minute rollup's input (migration 0008's feed, whose own view aggregates it): per conversation
-- and minute the latency values of the items created in it (else when speech started, else
-- event_time), those of unflagged and of flagged items apart. groupArrayIf skips NULLs, as the JS does.
CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.agent_latency_feed_mv TO {database}.agent_latency_feed AS
SELECT
    any(agent_id) AS agent_id,
    toDateTime(toStartOfMinute(coalesce(created, started, event_time)), 'UTC') AS minute,
    session_id,
    any(agent_name) AS agent_name, any(source) AS source, any(version) AS version, 0 AS is_deleted,
    groupArrayIf(toFloat64(toFloat32(h.metrics.e2e_latency)), empty(flags)) AS e2e_latency_unflagged,
    groupArrayIf(toFloat64(toFloat32(h.metrics.llm_node_ttft)), empty(flags)) AS llm_node_ttft_unflagged,
    groupArrayIf(toFloat64(toFloat32(h.metrics.tts_node_ttfb)), empty(flags)) AS tts_node_ttfb_unflagged,
    groupArrayIf(toFloat64(toFloat32(h.metrics.transcription_delay)), empty(flags)) AS transcription_delay_unflagged,
    groupArrayIf(toFloat64(toFloat32(h.metrics.end_of_turn_delay)), empty(flags)) AS end_of_turn_delay_unflagged,
    groupArrayIf(toFloat64(toFloat32(h.metrics.e2e_latency)), notEmpty(flags)) AS e2e_latency_flagged,
    groupArrayIf(toFloat64(toFloat32(h.metrics.llm_node_ttft)), notEmpty(flags)) AS llm_node_ttft_flagged,
    groupArrayIf(toFloat64(toFloat32(h.metrics.tts_node_ttfb)), notEmpty(flags)) AS tts_node_ttfb_flagged,
    groupArrayIf(toFloat64(toFloat32(h.metrics.transcription_delay)), notEmpty(flags)) AS transcription_delay_flagged,
    groupArrayIf(toFloat64(toFloat32(h.metrics.end_of_turn_delay)), notEmpty(flags)) AS end_of_turn_delay_flagged
FROM {database}.conversation_flat
ARRAY JOIN data.history AS h, item_created_at AS created, item_started_at AS started,
    item_metric_flags AS flags
WHERE toFloat64(toFloat32(h.metrics.e2e_latency)) IS NOT NULL OR toFloat64(toFloat32(h.metrics.llm_node_ttft)) IS NOT NULL OR toFloat64(toFloat32(h.metrics.tts_node_ttfb)) IS NOT NULL
   OR toFloat64(toFloat32(h.metrics.transcription_delay)) IS NOT NULL OR toFloat64(toFloat32(h.metrics.end_of_turn_delay)) IS NOT NULL
GROUP BY session_id, minute;

-- The per-conversation rollup's input (migration 0008): one row per conversation, what the
-- dashboards break latency down by (the conversations_mv expressions; is_test and failed as
-- conversation-rows.ts computes them) and its turns' end-to-end latencies, unflagged and flagged
-- apart (no lambda captures an array: each pairs a history field with item_metric_flags).
CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.conversation_latency_feed_mv TO {database}.conversation_latency_feed AS
WITH arrayMap(h -> toFloat64(toFloat32(h.metrics.e2e_latency)), data.history) AS e2e
SELECT
    agent_id, event_time, session_id, agent_name, source, version, 0 AS is_deleted,
    campaign_id, data.campaign_name AS campaign_name, data.telecom_provider AS telecom_provider,
    test_run_id, test_run_id IS NOT NULL OR data.test_id IS NOT NULL AS is_test,
    data.status AS status, data.room_metadata.failed AS room_failed,
    ifNull(data.room_metadata.failed = true, 0) OR ifNull(data.error_message, '') != '' AS failed,
    arrayMap(v -> assumeNotNull(v), arrayFilter((v, f) -> v IS NOT NULL AND empty(f), e2e, item_metric_flags)) AS e2e_latency_unflagged,
    arrayMap(v -> assumeNotNull(v), arrayFilter((v, f) -> v IS NOT NULL AND notEmpty(f), e2e, item_metric_flags)) AS e2e_latency_flagged
FROM {database}.conversation_flat;

-- The hour rollup (migration 0013). The worker's keeper recomputes, off the write path, every
-- agent-hour that ended and whose minute rows were stored after its last recompute, from
-- agent_latency_minute FINAL (services/worker/write/hour-rollup-keeper.ts); a running hour waits until
-- it ended (panels read it from the minute rollup until then). Here ClickHouse does the same with its
-- own means: a view notes the agent-hours each block of the minute rollup's feed touches, and a
-- refreshable view recomputes, every second, the ended agent-hours noted after their own last
-- recompute (their newest version in agent_latency_hour, the server's clock when that recompute began)
-- with the worker's statement ({hour_recompute}: tombstones, then the groups one version higher,
-- appended). Not an incremental view into an additive table: the minute rollup replaces a
-- conversation's rows on re-delivery (FINAL), which a sum cannot undo, and the dashboards read
-- agent_latency_hour as it is. Not a recompute of every hour: its cost would grow with all history.
-- A noted agent-hour stays due for a margin (10 s, clickhouse-side-sql.ts) after its recompute began, so
-- a block whose feed was noted before the recompute and whose minute rows landed after it is
-- recomputed again: an insert slower than that can leave its hours stale until touched again.
CREATE TABLE IF NOT EXISTS {database}.agent_latency_hour_touched
(
    agent_id LowCardinality(String),
    hour DateTime('UTC'),
    touched_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = MergeTree
ORDER BY touched_at
TTL toDateTime(touched_at) + INTERVAL 2 HOUR;

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.agent_latency_hour_touched_mv TO {database}.agent_latency_hour_touched AS
SELECT DISTINCT agent_id, toStartOfHour(minute) AS hour
FROM {database}.agent_latency_feed;

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.agent_latency_hour_mv
REFRESH EVERY 1 SECOND APPEND TO {database}.agent_latency_hour AS
{hour_recompute};

-- Last: a Kafka table starts consuming as soon as a view reads it, so every view below the flat
-- table must exist before this one does. Lambdas capture only small arrays (numbers, ids).
CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.conversation_flat_mv TO {database}.conversation_flat AS
WITH
    data.history AS history,
    arrayEnumerate(history) AS positions,
    parseDateTime64BestEffortOrNull(data.start_time, 3, 'UTC') AS start_ts,
    parseDateTime64BestEffortOrNull(data.created_at, 3, 'UTC') AS created_ts,
    parseDateTime64BestEffortOrNull(data.agent_joined_at, 3, 'UTC') AS joined_ts,
    arrayMap(h -> parseDateTime64BestEffortOrNull(h.created_at, 3, 'UTC'), history) AS created_list,
    arrayMap(h -> parseDateTime64BestEffortOrNull(h.metrics.started_speaking_at, 3, 'UTC'), history) AS started_list,
    arrayMap(h -> parseDateTime64BestEffortOrNull(h.metrics.stopped_speaking_at, 3, 'UTC'), history) AS stopped_list,
    -- conversation-key-time.ts: start_time, else created_at, else the earliest timestamp, else 1970
    arrayFilter(t -> t IS NOT NULL, arrayConcat([joined_ts], arrayFlatten(arrayMap((c, s, e) -> [c, s, e], created_list, started_list, stopped_list)))) AS others,
    multiIf(start_ts IS NOT NULL, start_ts, created_ts IS NOT NULL, created_ts,
            notEmpty(others), arrayMin(others), toDateTime64(0, 3, 'UTC')) AS key_time,
    multiIf(start_ts IS NOT NULL, 'start_time', created_ts IS NOT NULL, 'created_at',
            notEmpty(others), 'earliest_timestamp', 'none') AS key_source,
    ifNull(data.agent_id, '') AS agent,
    -- the agent speaking at each item: agent_id, or the target of the last handoff before it
    arrayMap(x -> assumeNotNull(x), arrayPopBack(arrayFill(x -> x IS NOT NULL,
        arrayConcat([CAST(agent, 'Nullable(String)')], arrayMap(h -> h.handoff_to_agent_id, history))))) AS speaking,
    arrayMap(h -> ifNull(h.kind IS NULL OR match(h.kind, '(?i)^message$'), 0), history) AS message_list,
    arrayMap((h, m) -> ifNull(m AND h.role IS NOT NULL AND match(h.role, '(?i)^user$'), 0), history, message_list) AS user_list,
    arrayMap((h, m) -> ifNull(m AND h.role IS NOT NULL AND match(h.role, '(?i)^(assistant|agent)$'), 0), history, message_list) AS agent_list,
    -- metric-quality.ts: the span; whether an agent message answers the user (the last user or
    -- agent message before it is the user's) and that message's end_of_turn_delay. arrayFill
    -- carries the last message forward; nothing is captured by a lambda (a captured array is
    -- copied once per item).
    arrayFilter(t -> t IS NOT NULL, [start_ts, created_ts]) AS starts,
    if(empty(starts), NULL, toUnixTimestamp64Milli(arrayMin(starts))) AS span_start_ms,
    if(coalesce(start_ts, created_ts) IS NULL OR data.duration_seconds IS NULL, NULL,
       toUnixTimestamp64Milli(coalesce(start_ts, created_ts)) + data.duration_seconds * 1000) AS span_end_ms,
    data.duration_seconds AS span_seconds,
    arrayMap((u, a) -> toUInt8(if(u, 2, if(a, 1, 0))), user_list, agent_list) AS message_role,
    arrayPopBack(arrayFill(r -> r != 0, arrayConcat([toUInt8(0)], message_role))) AS last_message_role,
    arrayPopBack(arrayFill((e, r) -> r != 0,
        arrayConcat([CAST(NULL, 'Nullable(Float64)')], arrayMap(h -> toFloat64(toFloat32(h.metrics.end_of_turn_delay)), history)),
        arrayConcat([toUInt8(0)], message_role))) AS last_message_end_of_turn,
    arrayMap((a, r) -> a AND r = 2, agent_list, last_message_role) AS answering_user,
    arrayMap((ans, e) -> if(ans, e, NULL), answering_user, last_message_end_of_turn) AS answered_end_of_turn,
    -- each rule of metric-quality.ts as a plain expression (a NULL comparison counts as false)
    arrayMap((h, u, ans, aeot, s, e) -> arrayFilter(f -> f != '', [
        if(ifNull(s > e, 0), 'speaking_interval_reversed', ''),
        if(ifNull(s < span_start_ms - 1000, 0) OR ifNull(s > span_end_ms + 1000, 0)
           OR ifNull(e < span_start_ms - 1000, 0) OR ifNull(e > span_end_ms + 1000, 0), 'speaking_outside_conversation', ''),
        if(ifNull(toFloat64(toFloat32(h.metrics.e2e_latency)) < 0, 0) OR ifNull(toFloat64(toFloat32(h.metrics.llm_node_ttft)) < 0, 0) OR ifNull(toFloat64(toFloat32(h.metrics.tts_node_ttfb)) < 0, 0) OR ifNull(toFloat64(toFloat32(h.metrics.transcription_delay)) < 0, 0) OR ifNull(toFloat64(toFloat32(h.metrics.end_of_turn_delay)) < 0, 0) OR ifNull(toFloat64(toFloat32(h.metrics.on_user_turn_completed_delay)) < 0, 0), 'negative_delay', ''),
        if(ifNull(toFloat64(toFloat32(h.metrics.e2e_latency)) >= span_seconds, 0) OR ifNull(toFloat64(toFloat32(h.metrics.llm_node_ttft)) >= span_seconds, 0) OR ifNull(toFloat64(toFloat32(h.metrics.tts_node_ttfb)) >= span_seconds, 0) OR ifNull(toFloat64(toFloat32(h.metrics.transcription_delay)) >= span_seconds, 0) OR ifNull(toFloat64(toFloat32(h.metrics.end_of_turn_delay)) >= span_seconds, 0) OR ifNull(toFloat64(toFloat32(h.metrics.on_user_turn_completed_delay)) >= span_seconds, 0), 'delay_longer_than_conversation', ''),
        -- the known parts summed in order, an unknown one as 0 (x + 0 = x: the same sum as the JS)
        if(toFloat64(toFloat32(h.metrics.e2e_latency)) IS NOT NULL AND (aeot IS NOT NULL OR toFloat64(toFloat32(h.metrics.llm_node_ttft)) IS NOT NULL OR toFloat64(toFloat32(h.metrics.tts_node_ttfb)) IS NOT NULL)
           AND toFloat64(toFloat32(h.metrics.e2e_latency)) < ifNull(aeot, 0) + ifNull(toFloat64(toFloat32(h.metrics.llm_node_ttft)), 0) + ifNull(toFloat64(toFloat32(h.metrics.tts_node_ttfb)), 0) - 0.05,
           'e2e_below_parts', ''),
        if(ans AND (toFloat64(toFloat32(h.metrics.e2e_latency)) IS NULL OR toFloat64(toFloat32(h.metrics.llm_node_ttft)) IS NULL OR toFloat64(toFloat32(h.metrics.tts_node_ttfb)) IS NULL), 'missing_agent_turn_metrics', ''),
        if(u AND (toFloat64(toFloat32(h.metrics.transcription_delay)) IS NULL OR toFloat64(toFloat32(h.metrics.end_of_turn_delay)) IS NULL), 'missing_user_turn_metrics', '')
    ]), history, user_list, answering_user, answered_end_of_turn,
        arrayMap(t -> toUnixTimestamp64Milli(t), started_list), arrayMap(t -> toUnixTimestamp64Milli(t), stopped_list)) AS flags,
    -- tool-call-pairing.ts, exactly: an output answers the earliest call with its id before it that
    -- no output answered yet (a queue per id). Calls are answered in their order, so the m-th output
    -- that finds a call waiting answers the m-th call with its id. With c(k) the calls with its id
    -- before the k-th output with that id, the count answered after it is m(k) = min(m(k-1) + 1, c(k)),
    -- that is k + min(0, min over i <= k of c(i) - i): a prefix minimum per id, on small numbers
    -- (a lambda that captured the ids would copy them once per item).
    arrayMap(h -> ifNull(h.tool_output IS NOT NULL OR h.tool_is_error IS NOT NULL OR (h.kind IS NOT NULL AND match(h.kind, '(?i)output|result')), 0), history) AS output_list,
    arrayMap((h, o) -> NOT o AND (h.tool_name IS NOT NULL OR h.tool_call_id IS NOT NULL OR h.tool_arguments_json IS NOT NULL), history, output_list) AS call_list,
    arrayMap(h -> h.tool_call_id, history) AS ids,
    arrayMap((i, c) -> if(c AND i IS NOT NULL, assumeNotNull(i), ''), ids, call_list) AS call_keys,
    arrayMap((i, o) -> if(o AND i IS NOT NULL, assumeNotNull(i), ''), ids, output_list) AS output_keys,
    arrayMap((ck, ok) -> if(ck != '', ck, ok), call_keys, output_keys) AS tool_keys,
    arrayMap(k -> k != '', output_keys) AS keyed_output,
    arrayEnumerateDense(tool_keys) AS key_group,
    -- calls and outputs with the id so far (this one included), and k: outputs with the id so far
    arrayEnumerateUniq(tool_keys) AS seen_with_key,
    arrayEnumerateUniq(output_keys) AS output_rank,
    arrayMap((o, seen, k) -> if(o, toInt64(seen) - 2 * toInt64(k), 0), keyed_output, seen_with_key, output_rank) AS slack,
    -- m(k-1): the calls with its id answered before this output (arrayMin of nothing is 0, as needed)
    arrayMap((p, g, o, k) -> if(o, toInt64(k) - 1 + least(0, arrayMin(arrayFilter((sl, q, g2, o2) -> o2 AND g2 = g AND q < p, slack, positions, key_group, keyed_output))), 0),
        positions, key_group, keyed_output, output_rank) AS answered_before,
    arrayMap((o, ok, seen, k, m) -> if(o AND toInt64(seen) - toInt64(k) > m, (ok, toUInt32(m + 1)), ('', toUInt32(0))),
        keyed_output, output_keys, seen_with_key, output_rank, answered_before) AS answering,
    arrayMap((k, r) -> (k, toUInt32(if(k = '', 0, r))), call_keys, arrayEnumerateUniq(call_keys)) AS ranked_calls,
    arrayMap((c, a) -> toUInt32(if(c.1 != '', indexOf(answering, c), if(a.1 != '', indexOf(ranked_calls, a), 0))), ranked_calls, answering) AS partner,
    arrayFilter((p, c, o, pr) -> c OR (o AND pr = 0), positions, call_list, output_list, partner) AS tool_positions,
    arrayMap(h -> h.tool_name, history) AS tool_names,
    arrayMap(h -> h.tool_arguments_json, history) AS tool_arguments,
    arrayMap(h -> h.tool_output, history) AS tool_outputs,
    arrayMap(h -> h.tool_is_error, history) AS tool_errors
SELECT
    event,
    data,
    extra_fields_json AS envelope_extra_fields_json,
    received_at,
    {kafka_topic} AS kafka_topic,
    {kafka_partition} AS kafka_partition,
    {kafka_offset} AS kafka_offset,
    data.session_id AS session_id,
    agent AS agent_id,
    data.agent_name AS agent_name,
    ifNull(source, '') AS source,
    if(received_at IS NULL, {kafka_timestamp_ms}, toUnixTimestamp64Milli(received_at)) AS version,
    start_ts AS start_time,
    created_ts AS created_at,
    joined_ts AS agent_joined_at,
    key_time AS event_time,
    key_source AS event_time_source,
    data.campaign_id AS campaign_id,
    data.test_run_id AS test_run_id,
    arrayCount(x -> x = 1, user_list) AS user_turn_count,
    arrayCount(x -> x = 1, agent_list) AS agent_turn_count,
    arrayCount(x -> x = 1, call_list) AS tool_call_count,
    arrayCount((o, e) -> o = 1 AND e = true, output_list, tool_errors) AS tool_error_count,
    arrayCount(f -> notEmpty(f), flags) AS flagged_item_count,
    created_list AS item_created_at,
    started_list AS item_started_at,
    stopped_list AS item_stopped_at,
    speaking AS active_agent_ids,
    flags AS item_metric_flags,
    arrayMap((p, call_p, output_p) -> (
        toUInt32(p - 1),
        speaking[p],
        ids[p],
        coalesce(if(call_p = 0, NULL, tool_names[call_p]), if(output_p = 0, NULL, tool_names[output_p])),
        if(call_p = 0, NULL, tool_arguments[call_p]),
        if(call_p = 0, NULL, toUInt32(call_p - 1)),
        if(call_p = 0, NULL, created_list[call_p]),
        if(output_p = 0, NULL, toUInt32(output_p - 1)),
        if(output_p = 0, NULL, created_list[output_p]),
        if(output_p = 0, NULL, tool_outputs[output_p]),
        if(output_p = 0, NULL, tool_errors[output_p])
    ), tool_positions,
       arrayMap(p -> if(call_list[p], p, 0), tool_positions),
       arrayMap(p -> toUInt32(if(call_list[p], partner[p], p)), tool_positions)) AS tool_rows
FROM {database}.conversation_landing;
