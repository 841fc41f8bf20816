-- Per agent per minute latency rollup for the dashboards. A materialized view sees every insert,
-- and a platform re-delivery arrives with other offsets (another insert token), so an
-- AggregatingMergeTree summed per agent and minute would count it twice. Instead each row holds
-- one conversation's partial aggregates for one agent-minute, keyed by (agent_id, minute,
-- session_id) and versioned like the base tables: any repeated delivery replaces its own rows.
-- Dashboards read it with FINAL and merge the states per agent and minute (or read the view
-- agent_latency_per_minute). The worker inserts one row per conversation and minute into the Null
-- table agent_latency_feed (so a conversation is never split across insert blocks); the view
-- turns the value arrays into counts, sums, maxima and t-digest quantile states.

CREATE TABLE IF NOT EXISTS {database}.agent_latency_minute
(
    agent_id LowCardinality(String),
    minute DateTime('UTC'),
    session_id String,
    agent_name LowCardinality(Nullable(String)),
    source LowCardinality(String),
    version UInt64,
    e2e_latency_count UInt32,
    e2e_latency_sum Float64,
    e2e_latency_max Float64,
    e2e_latency_quantiles AggregateFunction(quantileTDigest, Float64),
    llm_node_ttft_count UInt32,
    llm_node_ttft_sum Float64,
    llm_node_ttft_max Float64,
    llm_node_ttft_quantiles AggregateFunction(quantileTDigest, Float64),
    tts_node_ttfb_count UInt32,
    tts_node_ttfb_sum Float64,
    tts_node_ttfb_max Float64,
    tts_node_ttfb_quantiles AggregateFunction(quantileTDigest, Float64),
    transcription_delay_count UInt32,
    transcription_delay_sum Float64,
    transcription_delay_max Float64,
    transcription_delay_quantiles AggregateFunction(quantileTDigest, Float64),
    end_of_turn_delay_count UInt32,
    end_of_turn_delay_sum Float64,
    end_of_turn_delay_max Float64,
    end_of_turn_delay_quantiles AggregateFunction(quantileTDigest, Float64)
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(minute)
ORDER BY (agent_id, minute, session_id)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS {database}.agent_latency_feed
(
    agent_id LowCardinality(String),
    minute DateTime('UTC'),
    session_id String,
    agent_name LowCardinality(Nullable(String)),
    source LowCardinality(String),
    version UInt64,
    e2e_latency Array(Float64),
    llm_node_ttft Array(Float64),
    tts_node_ttfb Array(Float64),
    transcription_delay Array(Float64),
    end_of_turn_delay Array(Float64)
)
ENGINE = Null;

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.agent_latency_minute_mv TO {database}.agent_latency_minute AS
SELECT
    agent_id, minute, session_id, agent_name, source, version,
    length(e2e_latency) AS e2e_latency_count,
    arraySum(e2e_latency) AS e2e_latency_sum,
    arrayMax(e2e_latency) AS e2e_latency_max,
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

-- What most latency panels want: per agent and minute, counts, means and quantiles (seconds).
CREATE VIEW IF NOT EXISTS {database}.agent_latency_per_minute AS
SELECT
    agent_id,
    minute,
    any(agent_name) AS agent_name,
    uniqExact(session_id) AS conversations,
    sum(e2e_latency_count) AS e2e_latency_samples,
    sum(e2e_latency_sum) / nullIf(sum(e2e_latency_count), 0) AS e2e_latency_avg,
    quantilesTDigestMerge(0.5, 0.9, 0.95, 0.99)(e2e_latency_quantiles) AS e2e_latency_p50_p90_p95_p99,
    sum(llm_node_ttft_count) AS llm_node_ttft_samples,
    sum(llm_node_ttft_sum) / nullIf(sum(llm_node_ttft_count), 0) AS llm_node_ttft_avg,
    quantilesTDigestMerge(0.5, 0.9, 0.95, 0.99)(llm_node_ttft_quantiles) AS llm_node_ttft_p50_p90_p95_p99,
    sum(tts_node_ttfb_count) AS tts_node_ttfb_samples,
    sum(tts_node_ttfb_sum) / nullIf(sum(tts_node_ttfb_count), 0) AS tts_node_ttfb_avg,
    quantilesTDigestMerge(0.5, 0.9, 0.95, 0.99)(tts_node_ttfb_quantiles) AS tts_node_ttfb_p50_p90_p95_p99,
    sum(transcription_delay_count) AS transcription_delay_samples,
    sum(transcription_delay_sum) / nullIf(sum(transcription_delay_count), 0) AS transcription_delay_avg,
    quantilesTDigestMerge(0.5, 0.9, 0.95, 0.99)(transcription_delay_quantiles) AS transcription_delay_p50_p90_p95_p99,
    sum(end_of_turn_delay_count) AS end_of_turn_delay_samples,
    sum(end_of_turn_delay_sum) / nullIf(sum(end_of_turn_delay_count), 0) AS end_of_turn_delay_avg,
    quantilesTDigestMerge(0.5, 0.9, 0.95, 0.99)(end_of_turn_delay_quantiles) AS end_of_turn_delay_p50_p90_p95_p99
FROM {database}.agent_latency_minute FINAL
GROUP BY agent_id, minute;
