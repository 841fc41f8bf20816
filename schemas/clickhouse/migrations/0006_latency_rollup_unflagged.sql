-- Percentiles without the values the metric-quality rules flag (#14). The rollup had no notion of
-- flags, so every dashboard percentile took impossible values too (a delay of an hour, an e2e below
-- its own parts). Each rollup row now holds, beside the states of all values, the same states of the
-- values of unflagged items only (<metric>_unflagged_*): the dashboards read those by default and
-- the others when their "Flagged values" variable says include. Separate states rather than a
-- `flagged` key column: the key (agent_id, minute, session_id), with which a later delivery replaces
-- or tombstones a conversation's rows, stays as it is, so nothing is rebuilt.
--
-- The worker fills <metric>_unflagged in the feed (the values of items whose metric_flags is empty).
-- Rows written before this migration were never checked, as with metric_flags (0005): their
-- unflagged columns default to their all-values columns, and so does a feed row that lacks them.
-- Every statement can run again without harm. Stop the workers while migrating: the view is
-- replaced, and rows fed between its drop and its creation would not reach the rollup.

ALTER TABLE {database}.agent_latency_feed
    ADD COLUMN IF NOT EXISTS e2e_latency_unflagged Array(Float64) DEFAULT e2e_latency;
ALTER TABLE {database}.agent_latency_feed
    ADD COLUMN IF NOT EXISTS llm_node_ttft_unflagged Array(Float64) DEFAULT llm_node_ttft;
ALTER TABLE {database}.agent_latency_feed
    ADD COLUMN IF NOT EXISTS tts_node_ttfb_unflagged Array(Float64) DEFAULT tts_node_ttfb;
ALTER TABLE {database}.agent_latency_feed
    ADD COLUMN IF NOT EXISTS transcription_delay_unflagged Array(Float64) DEFAULT transcription_delay;
ALTER TABLE {database}.agent_latency_feed
    ADD COLUMN IF NOT EXISTS end_of_turn_delay_unflagged Array(Float64) DEFAULT end_of_turn_delay;

ALTER TABLE {database}.agent_latency_minute
    ADD COLUMN IF NOT EXISTS e2e_latency_unflagged_count UInt32 DEFAULT e2e_latency_count,
    ADD COLUMN IF NOT EXISTS e2e_latency_unflagged_sum Float64 DEFAULT e2e_latency_sum,
    ADD COLUMN IF NOT EXISTS e2e_latency_unflagged_max Float64 DEFAULT e2e_latency_max,
    ADD COLUMN IF NOT EXISTS e2e_latency_unflagged_quantiles AggregateFunction(quantileTDigest, Float64) DEFAULT e2e_latency_quantiles;
ALTER TABLE {database}.agent_latency_minute
    ADD COLUMN IF NOT EXISTS llm_node_ttft_unflagged_count UInt32 DEFAULT llm_node_ttft_count,
    ADD COLUMN IF NOT EXISTS llm_node_ttft_unflagged_sum Float64 DEFAULT llm_node_ttft_sum,
    ADD COLUMN IF NOT EXISTS llm_node_ttft_unflagged_max Float64 DEFAULT llm_node_ttft_max,
    ADD COLUMN IF NOT EXISTS llm_node_ttft_unflagged_quantiles AggregateFunction(quantileTDigest, Float64) DEFAULT llm_node_ttft_quantiles;
ALTER TABLE {database}.agent_latency_minute
    ADD COLUMN IF NOT EXISTS tts_node_ttfb_unflagged_count UInt32 DEFAULT tts_node_ttfb_count,
    ADD COLUMN IF NOT EXISTS tts_node_ttfb_unflagged_sum Float64 DEFAULT tts_node_ttfb_sum,
    ADD COLUMN IF NOT EXISTS tts_node_ttfb_unflagged_max Float64 DEFAULT tts_node_ttfb_max,
    ADD COLUMN IF NOT EXISTS tts_node_ttfb_unflagged_quantiles AggregateFunction(quantileTDigest, Float64) DEFAULT tts_node_ttfb_quantiles;
ALTER TABLE {database}.agent_latency_minute
    ADD COLUMN IF NOT EXISTS transcription_delay_unflagged_count UInt32 DEFAULT transcription_delay_count,
    ADD COLUMN IF NOT EXISTS transcription_delay_unflagged_sum Float64 DEFAULT transcription_delay_sum,
    ADD COLUMN IF NOT EXISTS transcription_delay_unflagged_max Float64 DEFAULT transcription_delay_max,
    ADD COLUMN IF NOT EXISTS transcription_delay_unflagged_quantiles AggregateFunction(quantileTDigest, Float64) DEFAULT transcription_delay_quantiles;
ALTER TABLE {database}.agent_latency_minute
    ADD COLUMN IF NOT EXISTS end_of_turn_delay_unflagged_count UInt32 DEFAULT end_of_turn_delay_count,
    ADD COLUMN IF NOT EXISTS end_of_turn_delay_unflagged_sum Float64 DEFAULT end_of_turn_delay_sum,
    ADD COLUMN IF NOT EXISTS end_of_turn_delay_unflagged_max Float64 DEFAULT end_of_turn_delay_max,
    ADD COLUMN IF NOT EXISTS end_of_turn_delay_unflagged_quantiles AggregateFunction(quantileTDigest, Float64) DEFAULT end_of_turn_delay_quantiles;

-- The view again, now also aggregating the unflagged values.
DROP TABLE IF EXISTS {database}.agent_latency_minute_mv;
CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.agent_latency_minute_mv TO {database}.agent_latency_minute AS
SELECT
    agent_id, minute, session_id, agent_name, source, version, is_deleted,
    length(e2e_latency) AS e2e_latency_count,
    arraySum(e2e_latency) AS e2e_latency_sum,
    if(empty(e2e_latency), 0, arrayMax(e2e_latency)) AS e2e_latency_max,
    arrayReduce('quantileTDigestState', e2e_latency) AS e2e_latency_quantiles,
    length(e2e_latency_unflagged) AS e2e_latency_unflagged_count,
    arraySum(e2e_latency_unflagged) AS e2e_latency_unflagged_sum,
    if(empty(e2e_latency_unflagged), 0, arrayMax(e2e_latency_unflagged)) AS e2e_latency_unflagged_max,
    arrayReduce('quantileTDigestState', e2e_latency_unflagged) AS e2e_latency_unflagged_quantiles,
    length(llm_node_ttft) AS llm_node_ttft_count,
    arraySum(llm_node_ttft) AS llm_node_ttft_sum,
    if(empty(llm_node_ttft), 0, arrayMax(llm_node_ttft)) AS llm_node_ttft_max,
    arrayReduce('quantileTDigestState', llm_node_ttft) AS llm_node_ttft_quantiles,
    length(llm_node_ttft_unflagged) AS llm_node_ttft_unflagged_count,
    arraySum(llm_node_ttft_unflagged) AS llm_node_ttft_unflagged_sum,
    if(empty(llm_node_ttft_unflagged), 0, arrayMax(llm_node_ttft_unflagged)) AS llm_node_ttft_unflagged_max,
    arrayReduce('quantileTDigestState', llm_node_ttft_unflagged) AS llm_node_ttft_unflagged_quantiles,
    length(tts_node_ttfb) AS tts_node_ttfb_count,
    arraySum(tts_node_ttfb) AS tts_node_ttfb_sum,
    if(empty(tts_node_ttfb), 0, arrayMax(tts_node_ttfb)) AS tts_node_ttfb_max,
    arrayReduce('quantileTDigestState', tts_node_ttfb) AS tts_node_ttfb_quantiles,
    length(tts_node_ttfb_unflagged) AS tts_node_ttfb_unflagged_count,
    arraySum(tts_node_ttfb_unflagged) AS tts_node_ttfb_unflagged_sum,
    if(empty(tts_node_ttfb_unflagged), 0, arrayMax(tts_node_ttfb_unflagged)) AS tts_node_ttfb_unflagged_max,
    arrayReduce('quantileTDigestState', tts_node_ttfb_unflagged) AS tts_node_ttfb_unflagged_quantiles,
    length(transcription_delay) AS transcription_delay_count,
    arraySum(transcription_delay) AS transcription_delay_sum,
    if(empty(transcription_delay), 0, arrayMax(transcription_delay)) AS transcription_delay_max,
    arrayReduce('quantileTDigestState', transcription_delay) AS transcription_delay_quantiles,
    length(transcription_delay_unflagged) AS transcription_delay_unflagged_count,
    arraySum(transcription_delay_unflagged) AS transcription_delay_unflagged_sum,
    if(empty(transcription_delay_unflagged), 0, arrayMax(transcription_delay_unflagged)) AS transcription_delay_unflagged_max,
    arrayReduce('quantileTDigestState', transcription_delay_unflagged) AS transcription_delay_unflagged_quantiles,
    length(end_of_turn_delay) AS end_of_turn_delay_count,
    arraySum(end_of_turn_delay) AS end_of_turn_delay_sum,
    if(empty(end_of_turn_delay), 0, arrayMax(end_of_turn_delay)) AS end_of_turn_delay_max,
    arrayReduce('quantileTDigestState', end_of_turn_delay) AS end_of_turn_delay_quantiles,
    length(end_of_turn_delay_unflagged) AS end_of_turn_delay_unflagged_count,
    arraySum(end_of_turn_delay_unflagged) AS end_of_turn_delay_unflagged_sum,
    if(empty(end_of_turn_delay_unflagged), 0, arrayMax(end_of_turn_delay_unflagged)) AS end_of_turn_delay_unflagged_max,
    arrayReduce('quantileTDigestState', end_of_turn_delay_unflagged) AS end_of_turn_delay_unflagged_quantiles
FROM {database}.agent_latency_feed;
