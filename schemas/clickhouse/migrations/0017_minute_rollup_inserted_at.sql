-- When each row of the minute rollup was stored (#30), so that the hour rollup (0013) is recomputed
-- off the write path: instead of after every write, the worker's hour-rollup keeper recomputes, every
-- few seconds, the agent-hours whose minute rows were stored after the hour was last recomputed
-- (services/core/latency-hour-rollup.ts, dirtyHoursStatement) — whoever wrote them, whenever, even
-- a worker that died before its pass. Rows stored before this migration get the epoch (their hours
-- were recomputed by the worker that wrote them); every row from here on gets its insert time (a
-- re-delivery's tombstones too, so the hours it left are recomputed). The minmax index lets a pass
-- read only the granules written since the pass before. Every statement can run again.

ALTER TABLE {database}.agent_latency_minute
    ADD COLUMN IF NOT EXISTS inserted_at DateTime64(3, 'UTC') DEFAULT toDateTime64(0, 3, 'UTC') CODEC(Delta, ZSTD(1));

ALTER TABLE {database}.agent_latency_minute MATERIALIZE COLUMN inserted_at SETTINGS mutations_sync = 1;

ALTER TABLE {database}.agent_latency_minute
    MODIFY COLUMN inserted_at DateTime64(3, 'UTC') DEFAULT now64(3) CODEC(Delta, ZSTD(1));

ALTER TABLE {database}.agent_latency_minute
    ADD INDEX IF NOT EXISTS inserted_at_minmax inserted_at TYPE minmax GRANULARITY 1;

ALTER TABLE {database}.agent_latency_minute MATERIALIZE INDEX inserted_at_minmax SETTINGS mutations_sync = 1;
