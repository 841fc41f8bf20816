-- The worker's newest-delivery lookup (services/worker/stored-conversations.ts) asks before each write
-- which of its conversations are stored: `session_id IN (<the write's 200-1000 ids>)` on
-- conversations, whose sorting key does not start with session_id, so only this skip index can spare
-- the read. At the bloom filter's default false-positive rate (0.025 per value) over 4 granules, a
-- set of 500 ids matches every index block (1 - 0.975^500 is 1): each lookup read the whole table,
-- a cost that grew with it (#12). At 0.0001 per value over one granule (8,192 rows), a lookup of 500
-- ids that are not stored (a backlog of first deliveries) reads ~5% of the granules, at ~2.4 bytes
-- of index per conversation row. Rows stored before get the new index too (MATERIALIZE, waited for).
-- Every statement can run again: a run cut short leaves the lookup right, only slower, until the
-- next start repeats it; the last statement refuses to record the migration unless the index is the
-- new one.

ALTER TABLE {database}.conversations DROP INDEX IF EXISTS session_id_index;
ALTER TABLE {database}.conversations
    ADD INDEX IF NOT EXISTS session_id_index session_id TYPE bloom_filter(0.0001) GRANULARITY 1;
ALTER TABLE {database}.conversations MATERIALIZE INDEX session_id_index SETTINGS mutations_sync = 1;

SELECT throwIf(count() != 1, 'migration 0007: conversations.session_id_index is not bloom_filter(0.0001) GRANULARITY 1; run the migration again')
FROM system.data_skipping_indices
WHERE database = '{database}' AND table = 'conversations' AND name = 'session_id_index'
  AND type_full = 'bloom_filter(0.0001)' AND granularity = 1;
