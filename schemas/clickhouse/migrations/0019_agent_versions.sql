-- Agent versions inferred from the conversations (#32). Each conversation gets the fingerprint of the
-- agent configuration it ran: the instructions of its System message and AgentConfigUpdate items, the
-- tools those added and its handoff targets, normalised so that the call's own values (its "Call
-- context" section, `Variable x:` values, dates, times, phone numbers, identifiers), spacing and
-- tool order make no new version (services/worker/transform/agent-config.ts; docs/metrics.md,
-- "Agent versions"). NULL when the conversation shows no configuration, and in rows stored before
-- 0019 (a replay fills it in). Adding a column rewrites no part; workers need not stop.
--
-- agent_versions holds what a fingerprint stands for, so that what changed can be shown: one row per
-- agent and fingerprint, the same for every conversation that ran it (the worker writes it with each
-- conversation; the key keeps it once, so a batch read again or a re-delivery adds nothing). It holds
-- no conversation: first and last seen and the number of conversations are counted from
-- `conversations FINAL` at query time, which is exact under re-delivery and erasure. Small (a few rows
-- per agent), so it is kept whole on every node of a cluster and has no TTL.

ALTER TABLE {database}.conversations
    ADD COLUMN IF NOT EXISTS config_fingerprint Nullable(String) COMMENT 'agent configuration it ran: 16 hex digits of SHA-256, key of agent_versions; NULL: none shown, or stored before 0019' CODEC(ZSTD(3)) AFTER speech_left_out;

CREATE TABLE IF NOT EXISTS {database}.agent_versions
(
    agent_id String CODEC(ZSTD(3)),
    config_fingerprint String CODEC(ZSTD(3)),
    instructions String COMMENT 'the System message instructions, normalised' CODEC(ZSTD(3)),
    update_instructions Array(String) COMMENT 'each AgentConfigUpdate instructions, normalised, sorted' CODEC(ZSTD(3)),
    tools Array(String) COMMENT 'tools_added, distinct, sorted' CODEC(ZSTD(3)),
    handoff_targets Array(String) COMMENT 'handoff_to_agent_id, distinct, sorted' CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree
ORDER BY (agent_id, config_fingerprint);
