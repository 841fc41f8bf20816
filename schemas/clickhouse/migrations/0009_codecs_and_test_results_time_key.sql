-- A leaner store, and time pruning for test_results (#23).
--
-- Codecs, chosen column by column on generated conversations (bench:queries, bench/results/queries.md):
-- ZSTD(1) instead of the default LZ4 everywhere (smaller on every column measured); ZSTD(3) for the
-- long texts (content, session_id) and every Float64 — latencies stay Float64 seconds as the
-- contract says; Gorilla and FPC made them larger, the values are not a smooth series; Delta, ZSTD(1)
-- for the times that advance within a conversation (item and tool-call times, receipt times). Types,
-- keys and defaults do not change, so the worker's Native blocks still match (table-wire-types test).
-- A codec applies to the parts written after it; OPTIMIZE … FINAL rewrites the existing parts with
-- it (one merge per partition: expect minutes and a partition's size in free disk per million
-- conversations), keeping exactly the rows FINAL shows today (ReplacingMergeTree(version, is_deleted)
-- keeps tombstones in a merge that is not a CLEANUP).
--
-- test_results was sorted by (test_run_id, test_id, session_id): a 24-hour panel read every row of
-- the month. It is sorted by (event_time, test_run_id, test_id, session_id) now — the time first, as
-- in the other tables, then the key rows are replaced by; event_time is set once per delivery and a
-- re-delivery under another time gets a tombstone (services/worker/redelivery-plan.ts). A sorting key
-- cannot be altered, so the table is rebuilt as in 0004: a new table, the rows copied, the two
-- exchanged (atomic), the old one dropped. STOP THE WORKERS while this migration runs: rows written to
-- test_results between its copy and its exchange would stay in the dropped table. Every step can run
-- again without harm; the last statement refuses to record the migration unless test_results has the
-- new key and its codecs, so a run cut short is repeated at the next start. TTLs are not carried over
-- to the new test_results: the worker applies CLICKHOUSE_TTL_DAYS again after migrating.

ALTER TABLE {database}.campaign_items
    MODIFY COLUMN campaign_id CODEC(ZSTD(1)),
    MODIFY COLUMN campaign_item_id CODEC(ZSTD(1)),
    MODIFY COLUMN session_id CODEC(ZSTD(3)),
    MODIFY COLUMN event_time CODEC(ZSTD(1)),
    MODIFY COLUMN campaign_name CODEC(ZSTD(1)),
    MODIFY COLUMN agent_id CODEC(ZSTD(1)),
    MODIFY COLUMN agent_name CODEC(ZSTD(1)),
    MODIFY COLUMN status CODEC(ZSTD(1)),
    MODIFY COLUMN room_failed CODEC(ZSTD(1)),
    MODIFY COLUMN room_error CODEC(ZSTD(1)),
    MODIFY COLUMN error_message CODEC(ZSTD(1)),
    MODIFY COLUMN duration_seconds CODEC(ZSTD(3)),
    MODIFY COLUMN telecom_provider CODEC(ZSTD(1)),
    MODIFY COLUMN from_number CODEC(ZSTD(1)),
    MODIFY COLUMN to_number CODEC(ZSTD(1)),
    MODIFY COLUMN call_sid CODEC(ZSTD(1)),
    MODIFY COLUMN url_parameters CODEC(ZSTD(1)),
    MODIFY COLUMN user_turn_count CODEC(ZSTD(1)),
    MODIFY COLUMN source CODEC(ZSTD(1)),
    MODIFY COLUMN version CODEC(ZSTD(1));
OPTIMIZE TABLE {database}.campaign_items FINAL;

ALTER TABLE {database}.conversation_items
    MODIFY COLUMN session_id CODEC(ZSTD(3)),
    MODIFY COLUMN item_index CODEC(ZSTD(1)),
    MODIFY COLUMN event_time CODEC(ZSTD(1)),
    MODIFY COLUMN agent_id CODEC(ZSTD(1)),
    MODIFY COLUMN agent_name CODEC(ZSTD(1)),
    MODIFY COLUMN campaign_id CODEC(ZSTD(1)),
    MODIFY COLUMN test_run_id CODEC(ZSTD(1)),
    MODIFY COLUMN start_time CODEC(ZSTD(1)),
    MODIFY COLUMN source CODEC(ZSTD(1)),
    MODIFY COLUMN active_agent_id CODEC(ZSTD(1)),
    MODIFY COLUMN role CODEC(ZSTD(1)),
    MODIFY COLUMN content CODEC(ZSTD(3)),
    MODIFY COLUMN kind CODEC(ZSTD(1)),
    MODIFY COLUMN id CODEC(ZSTD(1)),
    MODIFY COLUMN created_at CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN interrupted CODEC(ZSTD(1)),
    MODIFY COLUMN transcript_confidence CODEC(ZSTD(3)),
    MODIFY COLUMN started_speaking_at CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN stopped_speaking_at CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN transcription_delay CODEC(ZSTD(3)),
    MODIFY COLUMN end_of_turn_delay CODEC(ZSTD(3)),
    MODIFY COLUMN on_user_turn_completed_delay CODEC(ZSTD(3)),
    MODIFY COLUMN llm_node_ttft CODEC(ZSTD(3)),
    MODIFY COLUMN tts_node_ttfb CODEC(ZSTD(3)),
    MODIFY COLUMN e2e_latency CODEC(ZSTD(3)),
    MODIFY COLUMN tool_name CODEC(ZSTD(1)),
    MODIFY COLUMN tool_call_id CODEC(ZSTD(1)),
    MODIFY COLUMN tool_arguments_json CODEC(ZSTD(1)),
    MODIFY COLUMN tool_output CODEC(ZSTD(1)),
    MODIFY COLUMN tool_is_error CODEC(ZSTD(1)),
    MODIFY COLUMN handoff_to_agent_id CODEC(ZSTD(1)),
    MODIFY COLUMN instructions CODEC(ZSTD(1)),
    MODIFY COLUMN tools_added CODEC(ZSTD(1)),
    MODIFY COLUMN extra_fields_json CODEC(ZSTD(1)),
    MODIFY COLUMN metrics_extra_fields_json CODEC(ZSTD(1)),
    MODIFY COLUMN metric_flags CODEC(ZSTD(1)),
    MODIFY COLUMN version CODEC(ZSTD(1));
OPTIMIZE TABLE {database}.conversation_items FINAL;

ALTER TABLE {database}.conversations
    MODIFY COLUMN session_id CODEC(ZSTD(3)),
    MODIFY COLUMN event_time CODEC(ZSTD(1)),
    MODIFY COLUMN event_time_source CODEC(ZSTD(1)),
    MODIFY COLUMN event CODEC(ZSTD(1)),
    MODIFY COLUMN agent_id CODEC(ZSTD(1)),
    MODIFY COLUMN agent_name CODEC(ZSTD(1)),
    MODIFY COLUMN audio_url CODEC(ZSTD(1)),
    MODIFY COLUMN audio_url_expires_at CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN created_at CODEC(ZSTD(1)),
    MODIFY COLUMN start_time CODEC(ZSTD(1)),
    MODIFY COLUMN agent_joined_at CODEC(ZSTD(1)),
    MODIFY COLUMN duration_seconds CODEC(ZSTD(3)),
    MODIFY COLUMN telecom_provider CODEC(ZSTD(1)),
    MODIFY COLUMN from_number CODEC(ZSTD(1)),
    MODIFY COLUMN to_number CODEC(ZSTD(1)),
    MODIFY COLUMN call_sid CODEC(ZSTD(1)),
    MODIFY COLUMN campaign_item_id CODEC(ZSTD(1)),
    MODIFY COLUMN campaign_id CODEC(ZSTD(1)),
    MODIFY COLUMN campaign_name CODEC(ZSTD(1)),
    MODIFY COLUMN url_parameters CODEC(ZSTD(1)),
    MODIFY COLUMN test_run_id CODEC(ZSTD(1)),
    MODIFY COLUMN test_id CODEC(ZSTD(1)),
    MODIFY COLUMN test_status CODEC(ZSTD(1)),
    MODIFY COLUMN test_success CODEC(ZSTD(1)),
    MODIFY COLUMN test_reasons CODEC(ZSTD(1)),
    MODIFY COLUMN test_completion_reason CODEC(ZSTD(1)),
    MODIFY COLUMN room_failed CODEC(ZSTD(1)),
    MODIFY COLUMN room_skip_composite_egress CODEC(ZSTD(1)),
    MODIFY COLUMN room_error CODEC(ZSTD(1)),
    MODIFY COLUMN status CODEC(ZSTD(1)),
    MODIFY COLUMN error_message CODEC(ZSTD(1)),
    MODIFY COLUMN item_count CODEC(ZSTD(1)),
    MODIFY COLUMN user_turn_count CODEC(ZSTD(1)),
    MODIFY COLUMN agent_turn_count CODEC(ZSTD(1)),
    MODIFY COLUMN tool_call_count CODEC(ZSTD(1)),
    MODIFY COLUMN tool_error_count CODEC(ZSTD(1)),
    MODIFY COLUMN interruption_count CODEC(ZSTD(1)),
    MODIFY COLUMN handoff_count CODEC(ZSTD(1)),
    MODIFY COLUMN flagged_item_count CODEC(ZSTD(1)),
    MODIFY COLUMN e2e_latency_p50 CODEC(ZSTD(3)),
    MODIFY COLUMN e2e_latency_p95 CODEC(ZSTD(3)),
    MODIFY COLUMN llm_node_ttft_p50 CODEC(ZSTD(3)),
    MODIFY COLUMN llm_node_ttft_p95 CODEC(ZSTD(3)),
    MODIFY COLUMN tts_node_ttfb_p50 CODEC(ZSTD(3)),
    MODIFY COLUMN tts_node_ttfb_p95 CODEC(ZSTD(3)),
    MODIFY COLUMN transcription_delay_p50 CODEC(ZSTD(3)),
    MODIFY COLUMN transcription_delay_p95 CODEC(ZSTD(3)),
    MODIFY COLUMN end_of_turn_delay_p50 CODEC(ZSTD(3)),
    MODIFY COLUMN end_of_turn_delay_p95 CODEC(ZSTD(3)),
    MODIFY COLUMN extra_fields_json CODEC(ZSTD(1)),
    MODIFY COLUMN envelope_extra_fields_json CODEC(ZSTD(1)),
    MODIFY COLUMN test_eval_result_extra_fields_json CODEC(ZSTD(1)),
    MODIFY COLUMN room_metadata_extra_fields_json CODEC(ZSTD(1)),
    MODIFY COLUMN source CODEC(ZSTD(1)),
    MODIFY COLUMN received_at CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN kafka_topic CODEC(ZSTD(1)),
    MODIFY COLUMN kafka_partition CODEC(ZSTD(1)),
    MODIFY COLUMN kafka_offset CODEC(ZSTD(1)),
    MODIFY COLUMN version CODEC(ZSTD(1)),
    MODIFY COLUMN inserted_at CODEC(Delta, ZSTD(1));
OPTIMIZE TABLE {database}.conversations FINAL;

ALTER TABLE {database}.handoffs
    MODIFY COLUMN session_id CODEC(ZSTD(3)),
    MODIFY COLUMN item_index CODEC(ZSTD(1)),
    MODIFY COLUMN event_time CODEC(ZSTD(1)),
    MODIFY COLUMN agent_id CODEC(ZSTD(1)),
    MODIFY COLUMN agent_name CODEC(ZSTD(1)),
    MODIFY COLUMN from_agent_id CODEC(ZSTD(1)),
    MODIFY COLUMN to_agent_id CODEC(ZSTD(1)),
    MODIFY COLUMN handed_off_at CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN instructions CODEC(ZSTD(1)),
    MODIFY COLUMN tools_added CODEC(ZSTD(1)),
    MODIFY COLUMN campaign_id CODEC(ZSTD(1)),
    MODIFY COLUMN test_run_id CODEC(ZSTD(1)),
    MODIFY COLUMN source CODEC(ZSTD(1)),
    MODIFY COLUMN version CODEC(ZSTD(1));
OPTIMIZE TABLE {database}.handoffs FINAL;

ALTER TABLE {database}.tool_calls
    MODIFY COLUMN session_id CODEC(ZSTD(3)),
    MODIFY COLUMN call_index CODEC(ZSTD(1)),
    MODIFY COLUMN event_time CODEC(ZSTD(1)),
    MODIFY COLUMN agent_id CODEC(ZSTD(1)),
    MODIFY COLUMN agent_name CODEC(ZSTD(1)),
    MODIFY COLUMN active_agent_id CODEC(ZSTD(1)),
    MODIFY COLUMN campaign_id CODEC(ZSTD(1)),
    MODIFY COLUMN test_run_id CODEC(ZSTD(1)),
    MODIFY COLUMN source CODEC(ZSTD(1)),
    MODIFY COLUMN tool_call_id CODEC(ZSTD(1)),
    MODIFY COLUMN tool_name CODEC(ZSTD(1)),
    MODIFY COLUMN tool_arguments_json CODEC(ZSTD(1)),
    MODIFY COLUMN call_item_index CODEC(ZSTD(1)),
    MODIFY COLUMN called_at CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN output_item_index CODEC(ZSTD(1)),
    MODIFY COLUMN output_at CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN tool_output CODEC(ZSTD(1)),
    MODIFY COLUMN tool_is_error CODEC(ZSTD(1)),
    MODIFY COLUMN duration_seconds CODEC(ZSTD(3)),
    MODIFY COLUMN version CODEC(ZSTD(1));
OPTIMIZE TABLE {database}.tool_calls FINAL;

CREATE TABLE IF NOT EXISTS {database}.test_results_0009 AS {database}.test_results
ENGINE = ReplacingMergeTree(version, is_deleted)
PARTITION BY toYYYYMM(event_time)
ORDER BY (event_time, test_run_id, test_id, session_id)
SETTINGS non_replicated_deduplication_window = 1000;
ALTER TABLE {database}.test_results_0009
    MODIFY COLUMN test_run_id CODEC(ZSTD(1)),
    MODIFY COLUMN test_id CODEC(ZSTD(1)),
    MODIFY COLUMN session_id CODEC(ZSTD(3)),
    MODIFY COLUMN event_time CODEC(ZSTD(1)),
    MODIFY COLUMN agent_id CODEC(ZSTD(1)),
    MODIFY COLUMN agent_name CODEC(ZSTD(1)),
    MODIFY COLUMN test_status CODEC(ZSTD(1)),
    MODIFY COLUMN test_success CODEC(ZSTD(1)),
    MODIFY COLUMN test_reasons CODEC(ZSTD(1)),
    MODIFY COLUMN test_completion_reason CODEC(ZSTD(1)),
    MODIFY COLUMN status CODEC(ZSTD(1)),
    MODIFY COLUMN room_failed CODEC(ZSTD(1)),
    MODIFY COLUMN error_message CODEC(ZSTD(1)),
    MODIFY COLUMN duration_seconds CODEC(ZSTD(3)),
    MODIFY COLUMN item_count CODEC(ZSTD(1)),
    MODIFY COLUMN source CODEC(ZSTD(1)),
    MODIFY COLUMN version CODEC(ZSTD(1));
INSERT INTO {database}.test_results_0009 SELECT * FROM {database}.test_results
SETTINGS insert_deduplication_token = 'migration-0009-copy-test_results';
EXCHANGE TABLES {database}.test_results AND {database}.test_results_0009;
DROP TABLE IF EXISTS {database}.test_results_0009;

-- Refuse to record the migration unless test_results has its new key and codecs (see above).
SELECT throwIf(count() != 1, 'migration 0009: test_results is not yet sorted by event_time with its codecs; run the migration again')
FROM system.tables
WHERE database = '{database}' AND name = 'test_results'
  AND sorting_key = 'event_time, test_run_id, test_id, session_id'
  AND (SELECT compression_codec FROM system.columns WHERE database = '{database}' AND table = 'test_results' AND name = 'session_id') = 'CODEC(ZSTD(3))';
