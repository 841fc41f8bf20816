-- Latency rollups that answer every dashboard breakdown without reading item rows (#23), with
-- fixed log-scale histograms instead of t-digest states.
--
-- conversation_latency: one row per conversation, keyed and partitioned like `conversations`
-- (agent_id, event_time, session_id), carrying what the dashboards break latency down by (agent,
-- campaign, telecom provider, test run, test vs production, status, room_failed / failed) and the
-- histogram of its turns' end-to-end latencies, unflagged and flagged apart. The panels per campaign,
-- provider, test run and test vs production read it instead of `conversation_items FINAL` joined with
-- `conversations FINAL` (1M conversations: ~1M rows instead of ~40M). The worker feeds it through the
-- Null table conversation_latency_feed, one row per conversation per delivery, and tombstones its rows
-- like every other table (services/worker/redelivery-plan.ts): FINAL shows exactly the newest delivery.
--
-- agent_latency_minute keeps its key (agent_id, minute, session_id: an item counts in its own minute)
-- but holds histograms instead of t-digest states: per metric, count and sum of the unflagged values
-- and of the flagged ones (those of every value, <metric>_{count,sum}, are ALIAS columns computed from
-- both: nothing stored twice; no maxima, which no panel read: a maximum is the histogram's top bucket,
-- and conversation_latency keeps each conversation's exactly), and two sparse histograms, unflagged values and flagged values, as
-- sorted bucket arrays with their counts. Percentiles merge histograms with sumMap (the values of every
-- row summed per bucket) and take the bucket holding the rank quantileExact takes, floor(level * n):
-- see dashboards/src/latency-histogram.ts.
--
-- The bucket of a value v (seconds): 0 for 0, else sign(v) * (2000 + round(log(|v|) / log(1.02)))
-- with the rounded exponent clamped to [-1500, 1500] (|v| within 1.3e-13 .. 8.2e12 s). A bucket stands
-- for 1.02^(|bucket| - 2000) with v's sign, within a factor 1.02^0.5 of every value in it: a
-- percentile read from the histogram is within 1 % (relative) of the exact one. Sums and histograms are
-- compressed with ZSTD (5,000 conversations, merged: 1,697 bytes per conversation in the t-digest
-- rollup, ~700 with histograms and LZ4, ~500 with ZSTD). Buckets order like
-- their values, negatives (flagged delays) below 0 below positives.
--
-- The feed of the minute rollup changes too: the worker sends per metric the values of unflagged and
-- of flagged items apart (<metric>_unflagged, <metric>_flagged). t-digest states cannot be turned into
-- histograms, so both rollups are rebuilt from the base tables read with FINAL, through their feeds
-- and views (the same bucket function). Stop the workers while migrating: the feed and the views are
-- replaced, and rows fed in between would not reach the rollups. Every statement can run again without
-- harm (a run cut short rebuilds both from the base tables again; FINAL collapses a repeated copy).
-- CLICKHOUSE_ROLLUP_TTL_DAYS applies to both rollups (the worker applies it again after migrating).
-- Rollup rows whose conversation the base tables no longer hold (a rollup kept longer than the items)
-- are not rebuilt.

-- The minute rollup, rebuilt with histograms.
DROP TABLE IF EXISTS {database}.agent_latency_minute_mv;
DROP VIEW IF EXISTS {database}.agent_latency_per_minute;
DROP TABLE IF EXISTS {database}.agent_latency_minute;
DROP TABLE IF EXISTS {database}.agent_latency_feed;

CREATE TABLE IF NOT EXISTS {database}.agent_latency_minute
(
    agent_id LowCardinality(String),
    minute DateTime('UTC'),
    session_id String,
    agent_name LowCardinality(Nullable(String)),
    source LowCardinality(String),
    version UInt64,
    is_deleted UInt8,
    e2e_latency_unflagged_count UInt32,
    e2e_latency_unflagged_sum Float64 CODEC(ZSTD(1)),
    e2e_latency_flagged_count UInt32,
    e2e_latency_flagged_sum Float64 CODEC(ZSTD(1)),
    e2e_latency_count UInt32 ALIAS e2e_latency_unflagged_count + e2e_latency_flagged_count,
    e2e_latency_sum Float64 ALIAS e2e_latency_unflagged_sum + e2e_latency_flagged_sum,
    e2e_latency_unflagged_buckets Array(Int16) CODEC(ZSTD(1)),
    e2e_latency_unflagged_bucket_counts Array(UInt32) CODEC(ZSTD(1)),
    e2e_latency_flagged_buckets Array(Int16) CODEC(ZSTD(1)),
    e2e_latency_flagged_bucket_counts Array(UInt32) CODEC(ZSTD(1)),
    llm_node_ttft_unflagged_count UInt32,
    llm_node_ttft_unflagged_sum Float64 CODEC(ZSTD(1)),
    llm_node_ttft_flagged_count UInt32,
    llm_node_ttft_flagged_sum Float64 CODEC(ZSTD(1)),
    llm_node_ttft_count UInt32 ALIAS llm_node_ttft_unflagged_count + llm_node_ttft_flagged_count,
    llm_node_ttft_sum Float64 ALIAS llm_node_ttft_unflagged_sum + llm_node_ttft_flagged_sum,
    llm_node_ttft_unflagged_buckets Array(Int16) CODEC(ZSTD(1)),
    llm_node_ttft_unflagged_bucket_counts Array(UInt32) CODEC(ZSTD(1)),
    llm_node_ttft_flagged_buckets Array(Int16) CODEC(ZSTD(1)),
    llm_node_ttft_flagged_bucket_counts Array(UInt32) CODEC(ZSTD(1)),
    tts_node_ttfb_unflagged_count UInt32,
    tts_node_ttfb_unflagged_sum Float64 CODEC(ZSTD(1)),
    tts_node_ttfb_flagged_count UInt32,
    tts_node_ttfb_flagged_sum Float64 CODEC(ZSTD(1)),
    tts_node_ttfb_count UInt32 ALIAS tts_node_ttfb_unflagged_count + tts_node_ttfb_flagged_count,
    tts_node_ttfb_sum Float64 ALIAS tts_node_ttfb_unflagged_sum + tts_node_ttfb_flagged_sum,
    tts_node_ttfb_unflagged_buckets Array(Int16) CODEC(ZSTD(1)),
    tts_node_ttfb_unflagged_bucket_counts Array(UInt32) CODEC(ZSTD(1)),
    tts_node_ttfb_flagged_buckets Array(Int16) CODEC(ZSTD(1)),
    tts_node_ttfb_flagged_bucket_counts Array(UInt32) CODEC(ZSTD(1)),
    transcription_delay_unflagged_count UInt32,
    transcription_delay_unflagged_sum Float64 CODEC(ZSTD(1)),
    transcription_delay_flagged_count UInt32,
    transcription_delay_flagged_sum Float64 CODEC(ZSTD(1)),
    transcription_delay_count UInt32 ALIAS transcription_delay_unflagged_count + transcription_delay_flagged_count,
    transcription_delay_sum Float64 ALIAS transcription_delay_unflagged_sum + transcription_delay_flagged_sum,
    transcription_delay_unflagged_buckets Array(Int16) CODEC(ZSTD(1)),
    transcription_delay_unflagged_bucket_counts Array(UInt32) CODEC(ZSTD(1)),
    transcription_delay_flagged_buckets Array(Int16) CODEC(ZSTD(1)),
    transcription_delay_flagged_bucket_counts Array(UInt32) CODEC(ZSTD(1)),
    end_of_turn_delay_unflagged_count UInt32,
    end_of_turn_delay_unflagged_sum Float64 CODEC(ZSTD(1)),
    end_of_turn_delay_flagged_count UInt32,
    end_of_turn_delay_flagged_sum Float64 CODEC(ZSTD(1)),
    end_of_turn_delay_count UInt32 ALIAS end_of_turn_delay_unflagged_count + end_of_turn_delay_flagged_count,
    end_of_turn_delay_sum Float64 ALIAS end_of_turn_delay_unflagged_sum + end_of_turn_delay_flagged_sum,
    end_of_turn_delay_unflagged_buckets Array(Int16) CODEC(ZSTD(1)),
    end_of_turn_delay_unflagged_bucket_counts Array(UInt32) CODEC(ZSTD(1)),
    end_of_turn_delay_flagged_buckets Array(Int16) CODEC(ZSTD(1)),
    end_of_turn_delay_flagged_bucket_counts Array(UInt32) CODEC(ZSTD(1))
)
ENGINE = ReplacingMergeTree(version, is_deleted)
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
    is_deleted UInt8,
    e2e_latency_unflagged Array(Float64),
    llm_node_ttft_unflagged Array(Float64),
    tts_node_ttfb_unflagged Array(Float64),
    transcription_delay_unflagged Array(Float64),
    end_of_turn_delay_unflagged Array(Float64),
    e2e_latency_flagged Array(Float64),
    llm_node_ttft_flagged Array(Float64),
    tts_node_ttfb_flagged Array(Float64),
    transcription_delay_flagged Array(Float64),
    end_of_turn_delay_flagged Array(Float64)
)
ENGINE = Null;

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.agent_latency_minute_mv TO {database}.agent_latency_minute AS
SELECT
    agent_id, minute, session_id, agent_name, source, version, is_deleted,
    length(e2e_latency_unflagged) AS e2e_latency_unflagged_count,
    arraySum(e2e_latency_unflagged) AS e2e_latency_unflagged_sum,
    length(e2e_latency_flagged) AS e2e_latency_flagged_count,
    arraySum(e2e_latency_flagged) AS e2e_latency_flagged_sum,
    arraySort(arrayDistinct(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), e2e_latency_unflagged))) AS e2e_latency_unflagged_buckets,
    arrayMap(b -> toUInt32(countEqual(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), e2e_latency_unflagged), b)), e2e_latency_unflagged_buckets) AS e2e_latency_unflagged_bucket_counts,
    arraySort(arrayDistinct(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), e2e_latency_flagged))) AS e2e_latency_flagged_buckets,
    arrayMap(b -> toUInt32(countEqual(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), e2e_latency_flagged), b)), e2e_latency_flagged_buckets) AS e2e_latency_flagged_bucket_counts,
    length(llm_node_ttft_unflagged) AS llm_node_ttft_unflagged_count,
    arraySum(llm_node_ttft_unflagged) AS llm_node_ttft_unflagged_sum,
    length(llm_node_ttft_flagged) AS llm_node_ttft_flagged_count,
    arraySum(llm_node_ttft_flagged) AS llm_node_ttft_flagged_sum,
    arraySort(arrayDistinct(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), llm_node_ttft_unflagged))) AS llm_node_ttft_unflagged_buckets,
    arrayMap(b -> toUInt32(countEqual(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), llm_node_ttft_unflagged), b)), llm_node_ttft_unflagged_buckets) AS llm_node_ttft_unflagged_bucket_counts,
    arraySort(arrayDistinct(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), llm_node_ttft_flagged))) AS llm_node_ttft_flagged_buckets,
    arrayMap(b -> toUInt32(countEqual(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), llm_node_ttft_flagged), b)), llm_node_ttft_flagged_buckets) AS llm_node_ttft_flagged_bucket_counts,
    length(tts_node_ttfb_unflagged) AS tts_node_ttfb_unflagged_count,
    arraySum(tts_node_ttfb_unflagged) AS tts_node_ttfb_unflagged_sum,
    length(tts_node_ttfb_flagged) AS tts_node_ttfb_flagged_count,
    arraySum(tts_node_ttfb_flagged) AS tts_node_ttfb_flagged_sum,
    arraySort(arrayDistinct(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), tts_node_ttfb_unflagged))) AS tts_node_ttfb_unflagged_buckets,
    arrayMap(b -> toUInt32(countEqual(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), tts_node_ttfb_unflagged), b)), tts_node_ttfb_unflagged_buckets) AS tts_node_ttfb_unflagged_bucket_counts,
    arraySort(arrayDistinct(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), tts_node_ttfb_flagged))) AS tts_node_ttfb_flagged_buckets,
    arrayMap(b -> toUInt32(countEqual(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), tts_node_ttfb_flagged), b)), tts_node_ttfb_flagged_buckets) AS tts_node_ttfb_flagged_bucket_counts,
    length(transcription_delay_unflagged) AS transcription_delay_unflagged_count,
    arraySum(transcription_delay_unflagged) AS transcription_delay_unflagged_sum,
    length(transcription_delay_flagged) AS transcription_delay_flagged_count,
    arraySum(transcription_delay_flagged) AS transcription_delay_flagged_sum,
    arraySort(arrayDistinct(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), transcription_delay_unflagged))) AS transcription_delay_unflagged_buckets,
    arrayMap(b -> toUInt32(countEqual(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), transcription_delay_unflagged), b)), transcription_delay_unflagged_buckets) AS transcription_delay_unflagged_bucket_counts,
    arraySort(arrayDistinct(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), transcription_delay_flagged))) AS transcription_delay_flagged_buckets,
    arrayMap(b -> toUInt32(countEqual(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), transcription_delay_flagged), b)), transcription_delay_flagged_buckets) AS transcription_delay_flagged_bucket_counts,
    length(end_of_turn_delay_unflagged) AS end_of_turn_delay_unflagged_count,
    arraySum(end_of_turn_delay_unflagged) AS end_of_turn_delay_unflagged_sum,
    length(end_of_turn_delay_flagged) AS end_of_turn_delay_flagged_count,
    arraySum(end_of_turn_delay_flagged) AS end_of_turn_delay_flagged_sum,
    arraySort(arrayDistinct(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), end_of_turn_delay_unflagged))) AS end_of_turn_delay_unflagged_buckets,
    arrayMap(b -> toUInt32(countEqual(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), end_of_turn_delay_unflagged), b)), end_of_turn_delay_unflagged_buckets) AS end_of_turn_delay_unflagged_bucket_counts,
    arraySort(arrayDistinct(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), end_of_turn_delay_flagged))) AS end_of_turn_delay_flagged_buckets,
    arrayMap(b -> toUInt32(countEqual(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), end_of_turn_delay_flagged), b)), end_of_turn_delay_flagged_buckets) AS end_of_turn_delay_flagged_bucket_counts
FROM {database}.agent_latency_feed;

-- Every conversation's rows again, as the worker feeds them: an item counts in the minute it was
-- created, else when speech started, else the conversation's time; items without a latency are left out.
INSERT INTO {database}.agent_latency_feed
SELECT
    agent_id,
    toStartOfMinute(coalesce(created_at, started_speaking_at, event_time)) AS minute,
    session_id,
    any(agent_name) AS agent_name,
    any(source) AS source,
    max(version) AS version,
    0 AS is_deleted,
    groupArrayIf(e2e_latency, e2e_latency IS NOT NULL AND empty(metric_flags)) AS e2e_latency_unflagged,
    groupArrayIf(llm_node_ttft, llm_node_ttft IS NOT NULL AND empty(metric_flags)) AS llm_node_ttft_unflagged,
    groupArrayIf(tts_node_ttfb, tts_node_ttfb IS NOT NULL AND empty(metric_flags)) AS tts_node_ttfb_unflagged,
    groupArrayIf(transcription_delay, transcription_delay IS NOT NULL AND empty(metric_flags)) AS transcription_delay_unflagged,
    groupArrayIf(end_of_turn_delay, end_of_turn_delay IS NOT NULL AND empty(metric_flags)) AS end_of_turn_delay_unflagged,
    groupArrayIf(e2e_latency, e2e_latency IS NOT NULL AND notEmpty(metric_flags)) AS e2e_latency_flagged,
    groupArrayIf(llm_node_ttft, llm_node_ttft IS NOT NULL AND notEmpty(metric_flags)) AS llm_node_ttft_flagged,
    groupArrayIf(tts_node_ttfb, tts_node_ttfb IS NOT NULL AND notEmpty(metric_flags)) AS tts_node_ttfb_flagged,
    groupArrayIf(transcription_delay, transcription_delay IS NOT NULL AND notEmpty(metric_flags)) AS transcription_delay_flagged,
    groupArrayIf(end_of_turn_delay, end_of_turn_delay IS NOT NULL AND notEmpty(metric_flags)) AS end_of_turn_delay_flagged
FROM {database}.conversation_items FINAL
WHERE e2e_latency IS NOT NULL OR llm_node_ttft IS NOT NULL OR tts_node_ttfb IS NOT NULL OR transcription_delay IS NOT NULL OR end_of_turn_delay IS NOT NULL
GROUP BY agent_id, minute, session_id
SETTINGS insert_deduplication_token = 'migration-0008-rebuild-agent_latency_minute';

-- What most latency panels want, per agent and minute (seconds), now from the histograms (every value).
CREATE VIEW IF NOT EXISTS {database}.agent_latency_per_minute AS
SELECT
    agent_id,
    minute,
    any(agent_name) AS agent_name,
    uniqExact(session_id) AS conversations,
    sum(e2e_latency_count) AS e2e_latency_samples,
    sum(e2e_latency_sum) / nullIf(sum(e2e_latency_count), 0) AS e2e_latency_avg,
    sumMap(arrayConcat(e2e_latency_unflagged_buckets, e2e_latency_flagged_buckets), arrayConcat(e2e_latency_unflagged_bucket_counts, e2e_latency_flagged_bucket_counts)) AS e2e_latency_histogram,
    sum(llm_node_ttft_count) AS llm_node_ttft_samples,
    sum(llm_node_ttft_sum) / nullIf(sum(llm_node_ttft_count), 0) AS llm_node_ttft_avg,
    sumMap(arrayConcat(llm_node_ttft_unflagged_buckets, llm_node_ttft_flagged_buckets), arrayConcat(llm_node_ttft_unflagged_bucket_counts, llm_node_ttft_flagged_bucket_counts)) AS llm_node_ttft_histogram,
    sum(tts_node_ttfb_count) AS tts_node_ttfb_samples,
    sum(tts_node_ttfb_sum) / nullIf(sum(tts_node_ttfb_count), 0) AS tts_node_ttfb_avg,
    sumMap(arrayConcat(tts_node_ttfb_unflagged_buckets, tts_node_ttfb_flagged_buckets), arrayConcat(tts_node_ttfb_unflagged_bucket_counts, tts_node_ttfb_flagged_bucket_counts)) AS tts_node_ttfb_histogram,
    sum(transcription_delay_count) AS transcription_delay_samples,
    sum(transcription_delay_sum) / nullIf(sum(transcription_delay_count), 0) AS transcription_delay_avg,
    sumMap(arrayConcat(transcription_delay_unflagged_buckets, transcription_delay_flagged_buckets), arrayConcat(transcription_delay_unflagged_bucket_counts, transcription_delay_flagged_bucket_counts)) AS transcription_delay_histogram,
    sum(end_of_turn_delay_count) AS end_of_turn_delay_samples,
    sum(end_of_turn_delay_sum) / nullIf(sum(end_of_turn_delay_count), 0) AS end_of_turn_delay_avg,
    sumMap(arrayConcat(end_of_turn_delay_unflagged_buckets, end_of_turn_delay_flagged_buckets), arrayConcat(end_of_turn_delay_unflagged_bucket_counts, end_of_turn_delay_flagged_bucket_counts)) AS end_of_turn_delay_histogram
FROM {database}.agent_latency_minute FINAL
GROUP BY agent_id, minute;

-- The per-conversation rollup.
CREATE TABLE IF NOT EXISTS {database}.conversation_latency
(
    agent_id LowCardinality(String),
    event_time DateTime64(3, 'UTC'),
    session_id String,
    agent_name LowCardinality(Nullable(String)),
    source LowCardinality(String),
    version UInt64,
    is_deleted UInt8,
    campaign_id Nullable(String),
    campaign_name LowCardinality(Nullable(String)),
    telecom_provider LowCardinality(Nullable(String)),
    test_run_id Nullable(String),
    is_test Bool COMMENT 'a conversation of a test run or a test (test_run_id or test_id set)',
    status LowCardinality(Nullable(String)),
    room_failed Nullable(Bool),
    failed Bool COMMENT 'its room failed or the platform sent an error_message',
    e2e_latency_unflagged_count UInt32,
    e2e_latency_unflagged_max Float64 COMMENT '0 when none' CODEC(ZSTD(1)),
    e2e_latency_unflagged_buckets Array(Int16) CODEC(ZSTD(1)),
    e2e_latency_unflagged_bucket_counts Array(UInt32) CODEC(ZSTD(1)),
    e2e_latency_flagged_count UInt32,
    e2e_latency_flagged_max Float64 COMMENT '0 when none' CODEC(ZSTD(1)),
    e2e_latency_flagged_buckets Array(Int16) CODEC(ZSTD(1)),
    e2e_latency_flagged_bucket_counts Array(UInt32) CODEC(ZSTD(1))
)
ENGINE = ReplacingMergeTree(version, is_deleted)
PARTITION BY toYYYYMM(event_time)
ORDER BY (agent_id, event_time, session_id)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS {database}.conversation_latency_feed
(
    agent_id LowCardinality(String),
    event_time DateTime64(3, 'UTC'),
    session_id String,
    agent_name LowCardinality(Nullable(String)),
    source LowCardinality(String),
    version UInt64,
    is_deleted UInt8,
    campaign_id Nullable(String),
    campaign_name LowCardinality(Nullable(String)),
    telecom_provider LowCardinality(Nullable(String)),
    test_run_id Nullable(String),
    is_test UInt8,
    status LowCardinality(Nullable(String)),
    room_failed Nullable(Bool),
    failed UInt8,
    e2e_latency_unflagged Array(Float64),
    e2e_latency_flagged Array(Float64)
)
ENGINE = Null;

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.conversation_latency_mv TO {database}.conversation_latency AS
SELECT
    agent_id, event_time, session_id, agent_name, source, version, is_deleted,
    campaign_id, campaign_name, telecom_provider, test_run_id, is_test, status, room_failed, failed,
    length(e2e_latency_unflagged) AS e2e_latency_unflagged_count,
    if(empty(e2e_latency_unflagged), 0, arrayMax(e2e_latency_unflagged)) AS e2e_latency_unflagged_max,
    arraySort(arrayDistinct(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), e2e_latency_unflagged))) AS e2e_latency_unflagged_buckets,
    arrayMap(b -> toUInt32(countEqual(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), e2e_latency_unflagged), b)), e2e_latency_unflagged_buckets) AS e2e_latency_unflagged_bucket_counts,
    length(e2e_latency_flagged) AS e2e_latency_flagged_count,
    if(empty(e2e_latency_flagged), 0, arrayMax(e2e_latency_flagged)) AS e2e_latency_flagged_max,
    arraySort(arrayDistinct(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), e2e_latency_flagged))) AS e2e_latency_flagged_buckets,
    arrayMap(b -> toUInt32(countEqual(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), e2e_latency_flagged), b)), e2e_latency_flagged_buckets) AS e2e_latency_flagged_bucket_counts
FROM {database}.conversation_latency_feed;

-- Every stored conversation through the feed (a conversation without turns too: it counts in the
-- failure rates). A fresh run first empties the table, so a repeated run leaves one copy.
TRUNCATE TABLE IF EXISTS {database}.conversation_latency;
INSERT INTO {database}.conversation_latency_feed
SELECT
    conversation.agent_id, conversation.event_time, conversation.session_id, conversation.agent_name,
    conversation.source, conversation.version, 0,
    conversation.campaign_id, conversation.campaign_name, conversation.telecom_provider,
    conversation.test_run_id, conversation.test_run_id IS NOT NULL OR conversation.test_id IS NOT NULL,
    conversation.status, conversation.room_failed,
    conversation.room_failed = true OR ifNull(conversation.error_message, '') != '',
    turns.unflagged, turns.flagged
FROM {database}.conversations AS conversation FINAL
LEFT JOIN
(
    SELECT
        agent_id, event_time, session_id,
        groupArrayIf(e2e_latency, e2e_latency IS NOT NULL AND empty(metric_flags)) AS unflagged,
        groupArrayIf(e2e_latency, e2e_latency IS NOT NULL AND notEmpty(metric_flags)) AS flagged
    FROM {database}.conversation_items FINAL
    GROUP BY agent_id, event_time, session_id
) AS turns USING (agent_id, event_time, session_id)
SETTINGS insert_deduplication_token = 'migration-0008-rebuild-conversation_latency';
