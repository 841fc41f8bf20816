-- Codecs for the latency rollups (#23), as 0009 chose them for the base tables, measured on the
-- 1,000,000-conversation benchmark database (bench/results/queries.md): per row of agent_latency_minute,
-- session_id 9.25 B with LZ4, 4.94 with ZSTD(3) (a conversation's rows sit in neighbouring minutes, and
-- ZSTD's window finds them), 4.82 with ZSTD(9); the small counts 2.23 B with LZ4, 0.38 with T64 and
-- ZSTD(1); the sums stay ZSTD(1) (5.09 B; Gorilla 7.83, FPC 7.39: they are not a smooth series). In
-- conversation_latency the same for session_id and the counts, and Delta for event_time, which
-- advances within an agent (its sorting key). Types and keys do not change. OPTIMIZE … FINAL rewrites
-- the existing parts with the codecs (one merge per partition), keeping exactly the rows FINAL shows.
-- Every statement can run again without harm.

ALTER TABLE {database}.agent_latency_minute
    MODIFY COLUMN session_id CODEC(ZSTD(3)),
    MODIFY COLUMN e2e_latency_unflagged_count CODEC(T64, ZSTD(1)),
    MODIFY COLUMN e2e_latency_flagged_count CODEC(T64, ZSTD(1)),
    MODIFY COLUMN llm_node_ttft_unflagged_count CODEC(T64, ZSTD(1)),
    MODIFY COLUMN llm_node_ttft_flagged_count CODEC(T64, ZSTD(1)),
    MODIFY COLUMN tts_node_ttfb_unflagged_count CODEC(T64, ZSTD(1)),
    MODIFY COLUMN tts_node_ttfb_flagged_count CODEC(T64, ZSTD(1)),
    MODIFY COLUMN transcription_delay_unflagged_count CODEC(T64, ZSTD(1)),
    MODIFY COLUMN transcription_delay_flagged_count CODEC(T64, ZSTD(1)),
    MODIFY COLUMN end_of_turn_delay_unflagged_count CODEC(T64, ZSTD(1)),
    MODIFY COLUMN end_of_turn_delay_flagged_count CODEC(T64, ZSTD(1));
OPTIMIZE TABLE {database}.agent_latency_minute FINAL;

ALTER TABLE {database}.conversation_latency
    MODIFY COLUMN session_id CODEC(ZSTD(3)),
    MODIFY COLUMN event_time CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN e2e_latency_unflagged_count CODEC(T64, ZSTD(1)),
    MODIFY COLUMN e2e_latency_flagged_count CODEC(T64, ZSTD(1));
OPTIMIZE TABLE {database}.conversation_latency FINAL;
