// The cluster form's vocabulary (clickhouse-cluster-ddl.ts): what a name of the migrations becomes
// on the cluster, and what fills the slots the rewrite changes: the local table's name, the
// Replicated engine and its Keeper path, the Distributed table's sharding key.

export interface ClusterLayout {
  /** Cluster name of the servers' remote_servers configuration. */
  cluster: string
  database: string
}

/**
 * What a name of the migrations is in the cluster: `sharded`, a table with a session_id column
 * (<name>_local on every shard, a Distributed table under the name); `replicated`, a table without
 * one (small bookkeeping such as an audit: the whole table on every node, one Keeper path for all,
 * read and written under its own name); or a view.
 */
export type TableKind = 'sharded' | 'replicated' | 'view' | 'materialized-view'
export type Catalog = ReadonlyMap<string, TableKind>

export const localSuffix = '_local'
/** The sharding key: a column every table of the pipeline has, the Kafka key of its rows. */
export const shardingKey = 'cityHash64(session_id)'
/**
 * Replicated engine arguments. {uuid} (the table's own, the same on every node of an ON CLUSTER
 * create) keeps the Keeper path right across EXCHANGE and RENAME, which move names, not paths.
 */
export const replicatedArguments = "'/clickhouse/tables/{uuid}/{shard}', '{replica}'"
/** A table on every node: one path for the whole cluster, a replica name unique in it. */
export const everywhereArguments = "'/clickhouse/tables/{uuid}/all', '{shard}-{replica}'"

/** The engines that have a Replicated form: the MergeTree family. */
export const replicableEngines = new Set([
  'MergeTree',
  'ReplacingMergeTree',
  'SummingMergeTree',
  'AggregatingMergeTree',
  'CollapsingMergeTree',
  'VersionedCollapsingMergeTree',
])
