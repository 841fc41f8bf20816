-- Metric sanity at ingest (#14). Each item carries the invariants of its metrics that do not hold
-- (services/worker/metric-quality.ts, docs/metric-quality.md); the values themselves are stored as
-- they came. Each conversation counts its flagged items. Rows stored before this migration were
-- never checked: they read as unflagged ([] and 0). Adding a column with a default rewrites no part.

ALTER TABLE {database}.conversation_items
    ADD COLUMN IF NOT EXISTS metric_flags Array(LowCardinality(String)) DEFAULT []
    COMMENT 'invariants of the metrics that do not hold (docs/metric-quality.md); empty: none, or stored before 0005'
    AFTER metrics_extra_fields_json;

ALTER TABLE {database}.conversations
    ADD COLUMN IF NOT EXISTS flagged_item_count UInt32 DEFAULT 0
    COMMENT 'items with at least one metric flag (0 for rows stored before 0005)'
    AFTER handoff_count;
