-- Re-deliveries leave only the newest delivery's rows (#10). Every versioned table becomes
-- ReplacingMergeTree(version, is_deleted): when a conversation arrives again with fewer items, other
-- tool calls or handoffs, another agent_id or another key time, the worker writes a tombstone
-- (is_deleted = 1, the new version) for each row of the earlier delivery that the new one does not
-- replace, under that row's own key and partition, so FINAL (and every view) shows exactly the newest
-- delivery. Keys and partitions stay as they were: time-range and per-agent queries keep their pruning.
-- The key time (event_time) is now derived from the payload only (start_time, else created_at, else
-- the earliest timestamp in it, else 1970-01-01), never the time of receipt; event_time_source says
-- which. Rows stored before this migration keep their event_time ('received_at' when that was used).
--
-- An engine cannot be altered, so each table is rebuilt: the column is added to the old table, a new
-- table is created with its structure and the new engine, the rows are copied, the two are exchanged
-- (atomic) and the old one dropped. The copy names its own deduplication token: chDB keeps the
-- token of the session's last insert (the runner's), which would otherwise drop it. Every step can run again without harm (a run cut short, or two
-- processes migrating at once, copies the same rows again, which FINAL collapses); the last statement
-- refuses to record the migration unless every table ended with the new engine, so a run that went
-- wrong is repeated at the next start. Stop the workers while migrating: rows written to a table
-- between its copy and its exchange would stay in the dropped table. TTLs are not carried over: the
-- worker applies CLICKHOUSE_TTL_DAYS / CLICKHOUSE_ROLLUP_TTL_DAYS again after migrating.

ALTER TABLE {database}.conversations
    ADD COLUMN IF NOT EXISTS event_time_source LowCardinality(String)
    DEFAULT multiIf(start_time IS NOT NULL, 'start_time', created_at IS NOT NULL, 'created_at', 'received_at')
    COMMENT 'what event_time was taken from: start_time, created_at, earliest_timestamp, none (1970-01-01); received_at before migration 0004'
    AFTER event_time;

-- The rollup's input carries the tombstone flag to the view.
ALTER TABLE {database}.agent_latency_feed ADD COLUMN IF NOT EXISTS is_deleted UInt8 DEFAULT 0 AFTER version;

ALTER TABLE {database}.conversations
    ADD COLUMN IF NOT EXISTS is_deleted UInt8 DEFAULT 0 COMMENT '1: a tombstone; FINAL hides the row it replaces' AFTER version;
CREATE TABLE IF NOT EXISTS {database}.conversations_0004 AS {database}.conversations
ENGINE = ReplacingMergeTree(version, is_deleted)
PARTITION BY toYYYYMM(event_time)
ORDER BY (agent_id, event_time, session_id)
SETTINGS non_replicated_deduplication_window = 1000;
INSERT INTO {database}.conversations_0004 SELECT * FROM {database}.conversations
SETTINGS insert_deduplication_token = 'migration-0004-copy-conversations';
EXCHANGE TABLES {database}.conversations AND {database}.conversations_0004;
DROP TABLE IF EXISTS {database}.conversations_0004;

ALTER TABLE {database}.conversation_items
    ADD COLUMN IF NOT EXISTS is_deleted UInt8 DEFAULT 0 COMMENT '1: a tombstone; FINAL hides the row it replaces' AFTER version;
CREATE TABLE IF NOT EXISTS {database}.conversation_items_0004 AS {database}.conversation_items
ENGINE = ReplacingMergeTree(version, is_deleted)
PARTITION BY toYYYYMM(event_time)
ORDER BY (agent_id, event_time, session_id, item_index)
SETTINGS non_replicated_deduplication_window = 1000;
INSERT INTO {database}.conversation_items_0004 SELECT * FROM {database}.conversation_items
SETTINGS insert_deduplication_token = 'migration-0004-copy-conversation_items';
EXCHANGE TABLES {database}.conversation_items AND {database}.conversation_items_0004;
DROP TABLE IF EXISTS {database}.conversation_items_0004;

ALTER TABLE {database}.tool_calls
    ADD COLUMN IF NOT EXISTS is_deleted UInt8 DEFAULT 0 COMMENT '1: a tombstone; FINAL hides the row it replaces' AFTER version;
CREATE TABLE IF NOT EXISTS {database}.tool_calls_0004 AS {database}.tool_calls
ENGINE = ReplacingMergeTree(version, is_deleted)
PARTITION BY toYYYYMM(event_time)
ORDER BY (agent_id, event_time, session_id, call_index)
SETTINGS non_replicated_deduplication_window = 1000;
INSERT INTO {database}.tool_calls_0004 SELECT * FROM {database}.tool_calls
SETTINGS insert_deduplication_token = 'migration-0004-copy-tool_calls';
EXCHANGE TABLES {database}.tool_calls AND {database}.tool_calls_0004;
DROP TABLE IF EXISTS {database}.tool_calls_0004;

ALTER TABLE {database}.handoffs
    ADD COLUMN IF NOT EXISTS is_deleted UInt8 DEFAULT 0 COMMENT '1: a tombstone; FINAL hides the row it replaces' AFTER version;
CREATE TABLE IF NOT EXISTS {database}.handoffs_0004 AS {database}.handoffs
ENGINE = ReplacingMergeTree(version, is_deleted)
PARTITION BY toYYYYMM(event_time)
ORDER BY (agent_id, event_time, session_id, item_index)
SETTINGS non_replicated_deduplication_window = 1000;
INSERT INTO {database}.handoffs_0004 SELECT * FROM {database}.handoffs
SETTINGS insert_deduplication_token = 'migration-0004-copy-handoffs';
EXCHANGE TABLES {database}.handoffs AND {database}.handoffs_0004;
DROP TABLE IF EXISTS {database}.handoffs_0004;

ALTER TABLE {database}.test_results
    ADD COLUMN IF NOT EXISTS is_deleted UInt8 DEFAULT 0 COMMENT '1: a tombstone; FINAL hides the row it replaces' AFTER version;
CREATE TABLE IF NOT EXISTS {database}.test_results_0004 AS {database}.test_results
ENGINE = ReplacingMergeTree(version, is_deleted)
PARTITION BY toYYYYMM(event_time)
ORDER BY (test_run_id, test_id, session_id)
SETTINGS non_replicated_deduplication_window = 1000;
INSERT INTO {database}.test_results_0004 SELECT * FROM {database}.test_results
SETTINGS insert_deduplication_token = 'migration-0004-copy-test_results';
EXCHANGE TABLES {database}.test_results AND {database}.test_results_0004;
DROP TABLE IF EXISTS {database}.test_results_0004;

ALTER TABLE {database}.campaign_items
    ADD COLUMN IF NOT EXISTS is_deleted UInt8 DEFAULT 0 COMMENT '1: a tombstone; FINAL hides the row it replaces' AFTER version;
CREATE TABLE IF NOT EXISTS {database}.campaign_items_0004 AS {database}.campaign_items
ENGINE = ReplacingMergeTree(version, is_deleted)
PARTITION BY toYYYYMM(event_time)
ORDER BY (campaign_id, event_time, campaign_item_id, session_id)
SETTINGS non_replicated_deduplication_window = 1000;
INSERT INTO {database}.campaign_items_0004 SELECT * FROM {database}.campaign_items
SETTINGS insert_deduplication_token = 'migration-0004-copy-campaign_items';
EXCHANGE TABLES {database}.campaign_items AND {database}.campaign_items_0004;
DROP TABLE IF EXISTS {database}.campaign_items_0004;

ALTER TABLE {database}.agent_latency_minute
    ADD COLUMN IF NOT EXISTS is_deleted UInt8 DEFAULT 0 COMMENT '1: a tombstone; FINAL hides the row it replaces' AFTER version;
CREATE TABLE IF NOT EXISTS {database}.agent_latency_minute_0004 AS {database}.agent_latency_minute
ENGINE = ReplacingMergeTree(version, is_deleted)
PARTITION BY toYYYYMM(minute)
ORDER BY (agent_id, minute, session_id)
SETTINGS non_replicated_deduplication_window = 1000;
INSERT INTO {database}.agent_latency_minute_0004 SELECT * FROM {database}.agent_latency_minute
SETTINGS insert_deduplication_token = 'migration-0004-copy-agent_latency_minute';
EXCHANGE TABLES {database}.agent_latency_minute AND {database}.agent_latency_minute_0004;
DROP TABLE IF EXISTS {database}.agent_latency_minute_0004;

-- The view again, now passing the tombstone flag on.
DROP TABLE IF EXISTS {database}.agent_latency_minute_mv;
CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.agent_latency_minute_mv TO {database}.agent_latency_minute AS
SELECT
    agent_id, minute, session_id, agent_name, source, version, is_deleted,
    length(e2e_latency) AS e2e_latency_count,
    arraySum(e2e_latency) AS e2e_latency_sum,
    if(empty(e2e_latency), 0, arrayMax(e2e_latency)) AS e2e_latency_max,
    arrayReduce('quantileTDigestState', e2e_latency) AS e2e_latency_quantiles,
    length(llm_node_ttft) AS llm_node_ttft_count,
    arraySum(llm_node_ttft) AS llm_node_ttft_sum,
    arrayMax(llm_node_ttft) AS llm_node_ttft_max,
    arrayReduce('quantileTDigestState', llm_node_ttft) AS llm_node_ttft_quantiles,
    length(tts_node_ttfb) AS tts_node_ttfb_count,
    arraySum(tts_node_ttfb) AS tts_node_ttfb_sum,
    arrayMax(tts_node_ttfb) AS tts_node_ttfb_max,
    arrayReduce('quantileTDigestState', tts_node_ttfb) AS tts_node_ttfb_quantiles,
    length(transcription_delay) AS transcription_delay_count,
    arraySum(transcription_delay) AS transcription_delay_sum,
    arrayMax(transcription_delay) AS transcription_delay_max,
    arrayReduce('quantileTDigestState', transcription_delay) AS transcription_delay_quantiles,
    length(end_of_turn_delay) AS end_of_turn_delay_count,
    arraySum(end_of_turn_delay) AS end_of_turn_delay_sum,
    arrayMax(end_of_turn_delay) AS end_of_turn_delay_max,
    arrayReduce('quantileTDigestState', end_of_turn_delay) AS end_of_turn_delay_quantiles
FROM {database}.agent_latency_feed;


-- Refuse to record the migration unless every table has the new engine (see above).
SELECT throwIf(count() != 7, 'migration 0004: not every table has ReplacingMergeTree(version, is_deleted); run the migration again')
FROM system.tables
WHERE database = '{database}'
  AND name IN ('conversations', 'conversation_items', 'tool_calls', 'handoffs', 'test_results', 'campaign_items', 'agent_latency_minute')
  AND engine_full LIKE 'ReplacingMergeTree(version, is\\_deleted)%';
