-- A write's conversation_items part is compact below 32 MB of uncompressed data (before: below the
-- 10 MB default, i.e. ~500 conversations of ~40 items), so the worker's writes (up to 20,000 item
-- rows and what joins them) make a part of about 14 files instead of a wide part of ~150 (two or more
-- per column stream). Creating files is a large share of an insert's CPU (#12): 1,000 conversations
-- per write cost 373 -> 215 µs of engine CPU per conversation for the items' insert
-- (bench/insert-table-cost.ts). The rows stored are the same; only the part's file layout differs.
-- Merged parts of 32 MB and more are wide, merged vertically as before; smaller merges write compact
-- parts. Rows stored before keep their parts. The statement can run again; the last one refuses to
-- record the migration unless the table has the setting.

ALTER TABLE {database}.conversation_items MODIFY SETTING min_bytes_for_wide_part = 33554432;

SELECT throwIf(count() != 1, 'migration 0008: conversation_items lacks min_bytes_for_wide_part = 33554432; run the migration again')
FROM system.tables
WHERE database = '{database}' AND name = 'conversation_items'
  AND position(engine_full, 'min_bytes_for_wide_part = 33554432') > 0;
