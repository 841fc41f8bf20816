-- Erasure (#24): `forget` removes every row of a caller's conversations and records that it did.
-- `erasures` is the audit: one row per request (a later version of the row records its verification),
-- holding the selector's kind and a keyed hash of its value, never the value, and counts per table.
-- `forgotten_sessions` is what the worker checks before each write, so that a platform re-delivery or
-- a `replay` of the event topic never stores a forgotten conversation again. It holds SHA-256 of the
-- session id (the platform's random identifier, not personal data; hashed so that nothing here joins
-- to anything stored elsewhere). Both are small: one row per request and per forgotten conversation.

CREATE TABLE IF NOT EXISTS {database}.erasures
(
    erasure_id UUID,
    requested_at DateTime64(3, 'UTC'),
    selector_kind LowCardinality(String),
    selector_hash String,
    time_from Nullable(DateTime64(3, 'UTC')),
    time_to Nullable(DateTime64(3, 'UTC')),
    command String,
    conversations UInt64,
    rows_removed Map(String, UInt64),
    verified_at Nullable(DateTime64(3, 'UTC')),
    remaining Map(String, UInt64),
    verification String,
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY erasure_id;

CREATE TABLE IF NOT EXISTS {database}.forgotten_sessions
(
    session_hash FixedString(64),
    erasure_id UUID,
    forgotten_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY session_hash;
