-- Turn-taking per conversation (#31): who talks, silences, barge-ins and cut-ins, the agent's
-- first word and response gaps, from the speaking times of the history items
-- (services/worker/transform/turn-taking.ts; docs/metrics.md defines each). NULL when the
-- conversation has no measurable speech, and in rows stored before 0018 (a replay fills them in).
-- Adding columns rewrites no part. ZSTD(3) as every column of the base tables since 0009.

ALTER TABLE {database}.conversations
    ADD COLUMN IF NOT EXISTS dead_air_threshold_ms Nullable(UInt32) COMMENT 'DEAD_AIR_SECONDS (ms) the row was computed with; NULL: stored before 0018' CODEC(ZSTD(3)) AFTER end_of_turn_delay_p95,
    ADD COLUMN IF NOT EXISTS agent_talk_ms Nullable(UInt32) COMMENT 'time the agent speaks (ms)' CODEC(ZSTD(3)) AFTER dead_air_threshold_ms,
    ADD COLUMN IF NOT EXISTS caller_talk_ms Nullable(UInt32) COMMENT 'time the caller speaks (ms)' CODEC(ZSTD(3)) AFTER agent_talk_ms,
    ADD COLUMN IF NOT EXISTS talk_ratio Nullable(Float64) COMMENT 'agent talk / (agent + caller talk)' CODEC(ZSTD(3)) AFTER caller_talk_ms,
    ADD COLUMN IF NOT EXISTS silence_ms Nullable(UInt32) COMMENT 'time nobody speaks between the first and the last speech (ms)' CODEC(ZSTD(3)) AFTER talk_ratio,
    ADD COLUMN IF NOT EXISTS dead_air_count Nullable(UInt32) COMMENT 'silences longer than dead_air_threshold_ms' CODEC(ZSTD(3)) AFTER silence_ms,
    ADD COLUMN IF NOT EXISTS longest_silence_ms Nullable(UInt32) COMMENT 'the longest silence (ms)' CODEC(ZSTD(3)) AFTER dead_air_count,
    ADD COLUMN IF NOT EXISTS caller_barge_ins Nullable(UInt32) COMMENT 'caller speech that starts while the agent speaks' CODEC(ZSTD(3)) AFTER longest_silence_ms,
    ADD COLUMN IF NOT EXISTS barge_ins_yielded Nullable(UInt32) COMMENT 'of those, the agent message was interrupted' CODEC(ZSTD(3)) AFTER caller_barge_ins,
    ADD COLUMN IF NOT EXISTS agent_cut_ins Nullable(UInt32) COMMENT 'agent speech that starts while the caller speaks' CODEC(ZSTD(3)) AFTER barge_ins_yielded,
    ADD COLUMN IF NOT EXISTS overlap_ms Nullable(UInt32) COMMENT 'time both speak (ms)' CODEC(ZSTD(3)) AFTER agent_cut_ins,
    ADD COLUMN IF NOT EXISTS first_word_ms Nullable(Float64) COMMENT 'agent_joined_at (else start_time) to the agent first speech (ms)' CODEC(ZSTD(3)) AFTER overlap_ms,
    ADD COLUMN IF NOT EXISTS response_turns Nullable(UInt32) COMMENT 'agent speech that follows caller speech' CODEC(ZSTD(3)) AFTER first_word_ms,
    ADD COLUMN IF NOT EXISTS response_gap_p50_ms Nullable(Float64) COMMENT 'caller stops -> agent starts, median over the turns (ms; negative: the agent started first)' CODEC(ZSTD(3)) AFTER response_turns,
    ADD COLUMN IF NOT EXISTS response_gap_p95_ms Nullable(Float64) COMMENT 'the same, 95th percentile (ms)' CODEC(ZSTD(3)) AFTER response_gap_p50_ms,
    ADD COLUMN IF NOT EXISTS gap_e2e_disagreements Nullable(UInt32) COMMENT 'turns whose gap and e2e_latency are more than 500 ms apart' CODEC(ZSTD(3)) AFTER response_gap_p95_ms,
    ADD COLUMN IF NOT EXISTS speech_left_out UInt32 DEFAULT 0 COMMENT 'speaking items left out: flagged speech, no stop, a side overlapping itself' CODEC(ZSTD(3)) AFTER gap_e2e_disagreements;
