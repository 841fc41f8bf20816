-- Where a conversation came from (#34): the webhook, or assembled from OpenTelemetry spans of an
-- open voice-agent framework (services/assembler; docs/otlp.md). From the record's `origin`
-- (ingestion metadata, null for a webhook): the framework, its version when the application says it,
-- the mapping (framework version range) that read the spans, the trace id and whether the root span
-- was there. Rows stored before 0020 read as webhook conversations, which they are. Adding columns
-- rewrites no part; workers need not stop.

ALTER TABLE {database}.conversations
    ADD COLUMN IF NOT EXISTS origin_kind LowCardinality(String) DEFAULT 'webhook' COMMENT 'webhook, or otlp: assembled from OpenTelemetry spans' CODEC(ZSTD(3)) AFTER config_fingerprint,
    ADD COLUMN IF NOT EXISTS origin_framework LowCardinality(Nullable(String)) COMMENT 'otlp: livekit-agents or pipecat' CODEC(ZSTD(3)) AFTER origin_kind,
    ADD COLUMN IF NOT EXISTS origin_framework_version LowCardinality(Nullable(String)) COMMENT 'otlp: the framework version, only when the application sent it (resource attribute voice.framework.version)' CODEC(ZSTD(3)) AFTER origin_framework,
    ADD COLUMN IF NOT EXISTS origin_mapping LowCardinality(Nullable(String)) COMMENT 'otlp: the mapping that read the spans, e.g. livekit-agents-1.7' CODEC(ZSTD(3)) AFTER origin_framework_version,
    ADD COLUMN IF NOT EXISTS origin_trace_id Nullable(String) COMMENT 'otlp: the trace id (32 hex digits)' CODEC(ZSTD(3)) AFTER origin_mapping,
    ADD COLUMN IF NOT EXISTS origin_complete Nullable(Bool) COMMENT 'otlp: false when assembled without its root span (idle time or memory cap)' CODEC(ZSTD(3)) AFTER origin_trace_id;
