-- The hour rollup (#23): agent_latency_minute merged over every conversation of an agent, source and
-- agent name in an hour. Panels over days read one row per agent-hour from it (a month of a million
-- calls: ~9k rows) instead of one per conversation and minute (~4.5M), and the minute rollup only for
-- the partial hours at the range's ends, ranges under an hour and choices this rollup has no column
-- for (a campaign, a telecom provider): dashboards/src/latency-rollup-rows.ts. Same columns, meaning
-- and histograms as agent_latency_minute (0008), without session_id.
--
-- Never added to, so never wrong: after every write the worker recomputes each agent-hour the write
-- touched from agent_latency_minute FINAL (services/core/latency-hour-rollup.ts): a tombstone for every
-- stored group of the hour, then the groups found now, one version higher (the server's clock). A
-- recompute repeated writes the same rows again; `forget` recomputes the hours of what it removed.
--
-- This migration fills it from agent_latency_minute, which holds every conversation already. Stop
-- the workers while migrating: a write between the fill and the worker's restart is recomputed only
-- when its hour is written again. Every statement can run again (the table is emptied and refilled).
-- CLICKHOUSE_ROLLUP_TTL_DAYS applies (the worker applies it after migrating). In cluster mode the
-- table has no session_id, so it is kept whole on every node (clickhouse-cluster-ddl.ts).

CREATE TABLE IF NOT EXISTS {database}.agent_latency_hour
(
    agent_id LowCardinality(String),
    hour DateTime('UTC'),
    source LowCardinality(String),
    agent_name LowCardinality(Nullable(String)),
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
PARTITION BY toYYYYMM(hour)
ORDER BY (agent_id, hour, source, agent_name)
SETTINGS allow_nullable_key = 1;

TRUNCATE TABLE IF EXISTS {database}.agent_latency_hour;
INSERT INTO {database}.agent_latency_hour
    (agent_id, hour, source, agent_name, version, is_deleted,
     e2e_latency_unflagged_count, e2e_latency_unflagged_sum, e2e_latency_unflagged_buckets, e2e_latency_unflagged_bucket_counts,
     e2e_latency_flagged_count, e2e_latency_flagged_sum, e2e_latency_flagged_buckets, e2e_latency_flagged_bucket_counts,
     llm_node_ttft_unflagged_count, llm_node_ttft_unflagged_sum, llm_node_ttft_unflagged_buckets, llm_node_ttft_unflagged_bucket_counts,
     llm_node_ttft_flagged_count, llm_node_ttft_flagged_sum, llm_node_ttft_flagged_buckets, llm_node_ttft_flagged_bucket_counts,
     tts_node_ttfb_unflagged_count, tts_node_ttfb_unflagged_sum, tts_node_ttfb_unflagged_buckets, tts_node_ttfb_unflagged_bucket_counts,
     tts_node_ttfb_flagged_count, tts_node_ttfb_flagged_sum, tts_node_ttfb_flagged_buckets, tts_node_ttfb_flagged_bucket_counts,
     transcription_delay_unflagged_count, transcription_delay_unflagged_sum, transcription_delay_unflagged_buckets, transcription_delay_unflagged_bucket_counts,
     transcription_delay_flagged_count, transcription_delay_flagged_sum, transcription_delay_flagged_buckets, transcription_delay_flagged_bucket_counts,
     end_of_turn_delay_unflagged_count, end_of_turn_delay_unflagged_sum, end_of_turn_delay_unflagged_buckets, end_of_turn_delay_unflagged_bucket_counts,
     end_of_turn_delay_flagged_count, end_of_turn_delay_flagged_sum, end_of_turn_delay_flagged_buckets, end_of_turn_delay_flagged_bucket_counts)
SELECT agent_id, toStartOfHour(minute) AS minute_hour, source, agent_name, toUInt64(toUnixTimestamp64Nano(now64(9))), 0,
    toUInt32(sum(e2e_latency_unflagged_count)),
    sum(e2e_latency_unflagged_sum),
    (sumMap(e2e_latency_unflagged_buckets, e2e_latency_unflagged_bucket_counts)).1,
    arrayMap(value -> toUInt32(value), (sumMap(e2e_latency_unflagged_buckets, e2e_latency_unflagged_bucket_counts)).2),
    toUInt32(sum(e2e_latency_flagged_count)),
    sum(e2e_latency_flagged_sum),
    (sumMap(e2e_latency_flagged_buckets, e2e_latency_flagged_bucket_counts)).1,
    arrayMap(value -> toUInt32(value), (sumMap(e2e_latency_flagged_buckets, e2e_latency_flagged_bucket_counts)).2),
    toUInt32(sum(llm_node_ttft_unflagged_count)),
    sum(llm_node_ttft_unflagged_sum),
    (sumMap(llm_node_ttft_unflagged_buckets, llm_node_ttft_unflagged_bucket_counts)).1,
    arrayMap(value -> toUInt32(value), (sumMap(llm_node_ttft_unflagged_buckets, llm_node_ttft_unflagged_bucket_counts)).2),
    toUInt32(sum(llm_node_ttft_flagged_count)),
    sum(llm_node_ttft_flagged_sum),
    (sumMap(llm_node_ttft_flagged_buckets, llm_node_ttft_flagged_bucket_counts)).1,
    arrayMap(value -> toUInt32(value), (sumMap(llm_node_ttft_flagged_buckets, llm_node_ttft_flagged_bucket_counts)).2),
    toUInt32(sum(tts_node_ttfb_unflagged_count)),
    sum(tts_node_ttfb_unflagged_sum),
    (sumMap(tts_node_ttfb_unflagged_buckets, tts_node_ttfb_unflagged_bucket_counts)).1,
    arrayMap(value -> toUInt32(value), (sumMap(tts_node_ttfb_unflagged_buckets, tts_node_ttfb_unflagged_bucket_counts)).2),
    toUInt32(sum(tts_node_ttfb_flagged_count)),
    sum(tts_node_ttfb_flagged_sum),
    (sumMap(tts_node_ttfb_flagged_buckets, tts_node_ttfb_flagged_bucket_counts)).1,
    arrayMap(value -> toUInt32(value), (sumMap(tts_node_ttfb_flagged_buckets, tts_node_ttfb_flagged_bucket_counts)).2),
    toUInt32(sum(transcription_delay_unflagged_count)),
    sum(transcription_delay_unflagged_sum),
    (sumMap(transcription_delay_unflagged_buckets, transcription_delay_unflagged_bucket_counts)).1,
    arrayMap(value -> toUInt32(value), (sumMap(transcription_delay_unflagged_buckets, transcription_delay_unflagged_bucket_counts)).2),
    toUInt32(sum(transcription_delay_flagged_count)),
    sum(transcription_delay_flagged_sum),
    (sumMap(transcription_delay_flagged_buckets, transcription_delay_flagged_bucket_counts)).1,
    arrayMap(value -> toUInt32(value), (sumMap(transcription_delay_flagged_buckets, transcription_delay_flagged_bucket_counts)).2),
    toUInt32(sum(end_of_turn_delay_unflagged_count)),
    sum(end_of_turn_delay_unflagged_sum),
    (sumMap(end_of_turn_delay_unflagged_buckets, end_of_turn_delay_unflagged_bucket_counts)).1,
    arrayMap(value -> toUInt32(value), (sumMap(end_of_turn_delay_unflagged_buckets, end_of_turn_delay_unflagged_bucket_counts)).2),
    toUInt32(sum(end_of_turn_delay_flagged_count)),
    sum(end_of_turn_delay_flagged_sum),
    (sumMap(end_of_turn_delay_flagged_buckets, end_of_turn_delay_flagged_bucket_counts)).1,
    arrayMap(value -> toUInt32(value), (sumMap(end_of_turn_delay_flagged_buckets, end_of_turn_delay_flagged_bucket_counts)).2)
FROM {database}.agent_latency_minute FINAL
GROUP BY agent_id, minute_hour, source, agent_name;
