import { tableNames } from '../services/worker/transform/table-rows.ts'

// Which tables the benchmarks read, alter or compare: the worker inserts into its tables and into
// Null feeds (names ending in `_feed`), which store nothing; the feeds' views fill the rollups.

/** The worker's insert tables that store rows: every one but the Null feeds. */
export const baseTableNames = tableNames.filter((table) => !table.endsWith('_feed'))

/** Every table the worker's rows end up stored in: the base tables and the rollups (migration 0008). */
export const storedTableNames = [...baseTableNames, 'agent_latency_minute', 'conversation_latency']
