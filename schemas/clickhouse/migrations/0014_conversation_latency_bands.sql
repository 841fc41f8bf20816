-- The end-to-end latency heatmap from the per-conversation rollup (#23). The Voice latency heatmap
-- counts turns per latency band (upper bounds 250, 500, 750, 1000, 1500, 2000, 3000, 5000 ms, above)
-- per interval of the conversation's time; it read every item row in range (`conversation_items
-- FINAL`: 37M rows for a month of a million calls, ~1.2 s). conversation_latency now keeps each
-- conversation's turns counted per band, unflagged and flagged apart (the histograms cannot say it:
-- their buckets straddle the bands' bounds), so the panel reads one row per conversation.
--
-- The bands are computed by the view from the feed's values, as the histograms are. Rows stored
-- before get them by rebuilding the table from the base tables, as 0008 did (stop the workers while
-- migrating). Every statement can run again (the table is emptied and refilled; FINAL collapses a
-- repeated copy).

ALTER TABLE {database}.conversation_latency
    ADD COLUMN IF NOT EXISTS e2e_latency_unflagged_bands Array(UInt32) COMMENT 'turns per heatmap band, unflagged' CODEC(ZSTD(1)),
    ADD COLUMN IF NOT EXISTS e2e_latency_flagged_bands Array(UInt32) COMMENT 'turns per heatmap band, flagged' CODEC(ZSTD(1));

DROP TABLE IF EXISTS {database}.conversation_latency_mv;

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
    arrayMap(b -> toUInt32(countEqual(arrayMap(v -> toInt16(sign(v) * (2000 + greatest(-1500, least(1500, round(log(abs(v)) / log(1.02)))))), e2e_latency_flagged), b)), e2e_latency_flagged_buckets) AS e2e_latency_flagged_bucket_counts,
    arrayMap(n -> toUInt32(n), [arrayCount(v -> v <= 0.25, e2e_latency_unflagged), arrayCount(v -> v > 0.25 AND v <= 0.5, e2e_latency_unflagged), arrayCount(v -> v > 0.5 AND v <= 0.75, e2e_latency_unflagged), arrayCount(v -> v > 0.75 AND v <= 1, e2e_latency_unflagged), arrayCount(v -> v > 1 AND v <= 1.5, e2e_latency_unflagged), arrayCount(v -> v > 1.5 AND v <= 2, e2e_latency_unflagged), arrayCount(v -> v > 2 AND v <= 3, e2e_latency_unflagged), arrayCount(v -> v > 3 AND v <= 5, e2e_latency_unflagged), arrayCount(v -> v > 5, e2e_latency_unflagged)]) AS e2e_latency_unflagged_bands,
    arrayMap(n -> toUInt32(n), [arrayCount(v -> v <= 0.25, e2e_latency_flagged), arrayCount(v -> v > 0.25 AND v <= 0.5, e2e_latency_flagged), arrayCount(v -> v > 0.5 AND v <= 0.75, e2e_latency_flagged), arrayCount(v -> v > 0.75 AND v <= 1, e2e_latency_flagged), arrayCount(v -> v > 1 AND v <= 1.5, e2e_latency_flagged), arrayCount(v -> v > 1.5 AND v <= 2, e2e_latency_flagged), arrayCount(v -> v > 2 AND v <= 3, e2e_latency_flagged), arrayCount(v -> v > 3 AND v <= 5, e2e_latency_flagged), arrayCount(v -> v > 5, e2e_latency_flagged)]) AS e2e_latency_flagged_bands
FROM {database}.conversation_latency_feed;

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
SETTINGS insert_deduplication_token = 'migration-0014-rebuild-conversation_latency';
