-- Measured values stored to Float32's precision (#23), still Float64 columns. The seven measured
-- values of conversation_items (the six delays and transcript_confidence) came with a full 53-bit
-- significand of clock noise: ~105 B per conversation each on disk, a third of the item table, for
-- digits far below what was measured (1e-16 s). Rounded to a 24-bit significand (within 6e-8 of the
-- value, 0.3 µs of a 5 s latency), the low 29 bits are zero and ZSTD(3) stores each in ~62 % of the
-- space (bench/results/queries.md). The columns stay Float64 seconds, as the contract says; the worker
-- rounds every value it writes the same way (services/worker/clickhouse-values.ts, measuredValue),
-- before the metric flags and the rollups read it. This converts the rows stored before: toFloat32
-- rounds to nearest as Math.fround does; a magnitude beyond Float32's range is left as it is. The
-- rollups of those rows keep the sums and buckets of the unrounded values (off by at most 6e-8 of a
-- value, and a value that close to a bucket's bound may sit in the neighbouring bucket); every row
-- written from here on is exact. The mutation rewrites the seven columns of every part (minutes per
-- million conversations); run again, it finds nothing to round. One mutation per column: each
-- rewrites only its column, and cluster mode reads an ALTER's commands at its commas.

ALTER TABLE {database}.conversation_items
    UPDATE transcript_confidence = toFloat64(toFloat32(transcript_confidence))
    WHERE transcript_confidence != toFloat64(toFloat32(transcript_confidence)) AND abs(transcript_confidence) <= 3.4028234663852886e38
SETTINGS mutations_sync = 1;

ALTER TABLE {database}.conversation_items
    UPDATE transcription_delay = toFloat64(toFloat32(transcription_delay))
    WHERE transcription_delay != toFloat64(toFloat32(transcription_delay)) AND abs(transcription_delay) <= 3.4028234663852886e38
SETTINGS mutations_sync = 1;

ALTER TABLE {database}.conversation_items
    UPDATE end_of_turn_delay = toFloat64(toFloat32(end_of_turn_delay))
    WHERE end_of_turn_delay != toFloat64(toFloat32(end_of_turn_delay)) AND abs(end_of_turn_delay) <= 3.4028234663852886e38
SETTINGS mutations_sync = 1;

ALTER TABLE {database}.conversation_items
    UPDATE on_user_turn_completed_delay = toFloat64(toFloat32(on_user_turn_completed_delay))
    WHERE on_user_turn_completed_delay != toFloat64(toFloat32(on_user_turn_completed_delay)) AND abs(on_user_turn_completed_delay) <= 3.4028234663852886e38
SETTINGS mutations_sync = 1;

ALTER TABLE {database}.conversation_items
    UPDATE llm_node_ttft = toFloat64(toFloat32(llm_node_ttft))
    WHERE llm_node_ttft != toFloat64(toFloat32(llm_node_ttft)) AND abs(llm_node_ttft) <= 3.4028234663852886e38
SETTINGS mutations_sync = 1;

ALTER TABLE {database}.conversation_items
    UPDATE tts_node_ttfb = toFloat64(toFloat32(tts_node_ttfb))
    WHERE tts_node_ttfb != toFloat64(toFloat32(tts_node_ttfb)) AND abs(tts_node_ttfb) <= 3.4028234663852886e38
SETTINGS mutations_sync = 1;

ALTER TABLE {database}.conversation_items
    UPDATE e2e_latency = toFloat64(toFloat32(e2e_latency))
    WHERE e2e_latency != toFloat64(toFloat32(e2e_latency)) AND abs(e2e_latency) <= 3.4028234663852886e38
SETTINGS mutations_sync = 1;
