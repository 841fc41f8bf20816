import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from 'chdb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ClusterDdl, clusterMigrationStatements } from './clickhouse-cluster-ddl.ts'
import { ClusterDdlError } from './clickhouse-errors.ts'
import { loadMigrations, migrationBookkeeping } from './clickhouse-migrations.ts'
import { clusterRetentionStatements } from './clickhouse-retention.ts'
import { type Catalog, shardingKey } from './cluster-ddl-layout.ts'

const layout = { cluster: 'va_cluster', database: 'voice_analytics' }
const db = layout.database
const migrations = loadMigrations(db)
const clusterForm = clusterMigrationStatements(migrations, layout)
const one = (line: string) => line.replace(/\s+/g, ' ').trim()

/** A translator that knows the tables of every migration file. */
const afterMigrations = () => {
  const ddl = new ClusterDdl(layout)
  for (const migration of migrations) for (const statement of migration.statements) ddl.translate(statement)
  return ddl
}

describe('every cluster statement of every migration parses (EXPLAIN AST in chDB)', () => {
  let dir: string
  let session: Session
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'va-cluster-ddl-'))
    session = new Session(dir)
  })
  afterAll(() => {
    session?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('covers every migration file, each with statements', () => {
    expect(migrations.length).toBeGreaterThanOrEqual(7)
    for (const [index, statements] of clusterForm.entries())
      expect(statements.length, `migration ${migrations[index]!.version}`).toBeGreaterThanOrEqual(
        migrations[index]!.statements.length,
      )
  })

  it.each(
    migrations.flatMap((migration, index) =>
      clusterForm[index]!.map((statement, n) => ({
        name: `${migration.version}_${migration.name} #${n + 1}: ${one(statement).slice(0, 70)}`,
        statement,
      })),
    ),
  )('$name', ({ statement }) => {
    const ast = session.query(`EXPLAIN AST ${statement}`, 'TSVRaw')
    expect(ast).toMatch(/^(Create|Alter|Rename|Drop|Truncate|Optimize|Insert|Select)/m)
  })

  it('the bookkeeping statements of cluster mode parse too', () => {
    for (const statement of migrationBookkeeping(db, layout.cluster))
      expect(session.query(`EXPLAIN AST ${statement}`, 'TSVRaw')).toMatch(/Create/)
  })

  it('a statement the engine cannot parse is refused by the same check (the check can fail)', () => {
    expect(() =>
      session.query(`EXPLAIN AST CREATE TABLE x ON CLUSTER ${layout.cluster} (a String`, 'TSVRaw'),
    ).toThrow(/Syntax error/)
  })
})

describe('the decisions of the cluster form', () => {
  it('every statement but INSERT and SELECT runs ON CLUSTER', () => {
    for (const statement of clusterForm.flat())
      if (!/^(INSERT|SELECT)\b/.test(statement))
        expect(one(statement), one(statement).slice(0, 100)).toContain(`ON CLUSTER ${layout.cluster}`)
  })

  it('a ReplacingMergeTree table: a Replicated local table on every shard, a Distributed table under its name', () => {
    const ddl = new ClusterDdl(layout)
    const [local, distributed] = ddl.translate(`CREATE TABLE IF NOT EXISTS ${db}.events
      (session_id String, version UInt64, is_deleted UInt8)
      ENGINE = ReplacingMergeTree(version, is_deleted)
      ORDER BY session_id
      SETTINGS non_replicated_deduplication_window = 1000`)
    expect(one(local!)).toBe(
      `CREATE TABLE IF NOT EXISTS ${db}.events_local ON CLUSTER va_cluster (session_id String, version UInt64, is_deleted UInt8) ` +
        "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{uuid}/{shard}', '{replica}', version, is_deleted) " +
        'ORDER BY session_id SETTINGS replicated_deduplication_window = 1000',
    )
    expect(one(distributed!)).toBe(
      `CREATE TABLE IF NOT EXISTS ${db}.events ON CLUSTER va_cluster AS ${db}.events_local ` +
        `ENGINE = Distributed(va_cluster, ${db}, events_local, cityHash64(session_id))`,
    )
    expect(ddl.tables.get('events')).toBe('sharded')
  })

  it.each([
    ['MergeTree', "ReplicatedMergeTree('/clickhouse/tables/{uuid}/{shard}', '{replica}')"],
    ['MergeTree()', "ReplicatedMergeTree('/clickhouse/tables/{uuid}/{shard}', '{replica}')"],
    [
      'AggregatingMergeTree',
      "ReplicatedAggregatingMergeTree('/clickhouse/tables/{uuid}/{shard}', '{replica}')",
    ],
    [
      'SummingMergeTree((a, b))',
      "ReplicatedSummingMergeTree('/clickhouse/tables/{uuid}/{shard}', '{replica}', (a, b))",
    ],
  ])('engine %s becomes %s', (engine, replicated) => {
    const [local] = new ClusterDdl(layout).translate(
      `CREATE TABLE ${db}.t (session_id String, a UInt8, b UInt8) ENGINE = ${engine} ORDER BY session_id`,
    )
    expect(one(local!)).toContain(`ENGINE = ${replicated} ORDER BY session_id`)
  })

  it('every Distributed table of the migrations shards by the session id, over its own local table', () => {
    const distributed = clusterForm.flat().filter((statement) => statement.includes('ENGINE = Distributed'))
    expect(distributed.length).toBeGreaterThanOrEqual(8)
    for (const statement of distributed) {
      const match =
        /TABLE (?:IF NOT EXISTS )?voice_analytics\.(\w+) ON CLUSTER va_cluster AS voice_analytics\.(\w+)\nENGINE = Distributed\(va_cluster, voice_analytics, (\w+), (.+)\)$/.exec(
          statement.replace('OR REPLACE ', ''),
        )
      expect(match, statement).not.toBeNull()
      expect(match![2]).toBe(`${match![1]}_local`)
      expect(match![3]).toBe(`${match![1]}_local`)
      expect(match![4]).toBe(shardingKey)
    }
    expect(shardingKey).toBe('cityHash64(session_id)')
  })

  it('no table of the migrations keeps a non-replicated engine or deduplication window', () => {
    for (const statement of clusterForm.flat()) {
      expect(statement).not.toMatch(/ENGINE = (Replacing|Aggregating|Summing)?MergeTree/)
      expect(statement).not.toMatch(/non_replicated_deduplication_window/)
    }
  })

  it('the rollup feed: a Null table on every shard, the view on each shard from the local feed into the local rollup', () => {
    const ddl = new ClusterDdl(layout, new Map([['rollup', 'sharded']]) as Catalog)
    const [local, distributed] = ddl.translate(
      `CREATE TABLE IF NOT EXISTS ${db}.feed (session_id String, v Array(Float64)) ENGINE = Null`,
    )
    expect(one(local!)).toBe(
      `CREATE TABLE IF NOT EXISTS ${db}.feed_local ON CLUSTER va_cluster (session_id String, v Array(Float64)) ENGINE = Null`,
    )
    expect(distributed).toContain(`Distributed(va_cluster, ${db}, feed_local, cityHash64(session_id))`)
    const [view] = ddl.translate(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.rollup_mv TO ${db}.rollup AS
      SELECT session_id, length(v) AS n, 'voice_analytics.feed' AS literal FROM ${db}.feed`)
    expect(one(view!)).toBe(
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.rollup_mv ON CLUSTER va_cluster TO ${db}.rollup_local AS ` +
        `SELECT session_id, length(v) AS n, 'voice_analytics.feed' AS literal FROM ${db}.feed_local`,
    )
    expect(ddl.tables.get('rollup_mv')).toBe('materialized-view')
  })

  it('a materialized view joining two sharded tables reads both local tables (a conversation is on one shard)', () => {
    const ddl = new ClusterDdl(
      layout,
      new Map([
        ['a', 'sharded'],
        ['b', 'sharded'],
        ['r', 'sharded'],
      ]) as Catalog,
    )
    const [view] = ddl.translate(
      `CREATE MATERIALIZED VIEW ${db}.r_mv TO ${db}.r AS SELECT * FROM ${db}.a JOIN ${db}.b USING session_id`,
    )
    expect(one(view!)).toContain(`FROM ${db}.a_local JOIN ${db}.b_local USING session_id`)
  })

  it('a plain view reads the Distributed tables: users see the whole cluster', () => {
    const [view] = afterMigrations().translate(
      `CREATE VIEW IF NOT EXISTS ${db}.summary AS SELECT count() FROM ${db}.conversations FINAL`,
    )
    expect(one(view!)).toBe(
      `CREATE VIEW IF NOT EXISTS ${db}.summary ON CLUSTER va_cluster AS SELECT count() FROM ${db}.conversations FINAL`,
    )
  })

  it('the prices: a replicated table (a full copy on every node), its dictionary on every node', () => {
    const ddl = afterMigrations()
    expect(ddl.tables.get('prices')).toBe('replicated')
    const [dictionary] = ddl.translate(
      `CREATE DICTIONARY IF NOT EXISTS ${db}.lookup (k UInt64, v Float64) PRIMARY KEY k SOURCE(CLICKHOUSE(QUERY 'SELECT k, v FROM ${db}.prices')) LIFETIME(60) LAYOUT(HASHED())`,
    )
    expect(one(dictionary!)).toBe(
      `CREATE DICTIONARY IF NOT EXISTS ${db}.lookup ON CLUSTER va_cluster (k UInt64, v Float64) PRIMARY KEY k SOURCE(CLICKHOUSE(QUERY 'SELECT k, v FROM ${db}.prices')) LIFETIME(60) LAYOUT(HASHED())`,
    )
    expect(() => ddl.translate(`CREATE DICTIONARY ${db}.bare PRIMARY KEY k`)).toThrow(
      'CREATE DICTIONARY without its attributes',
    )
  })

  it('ALTER: column changes on both tables, index and TTL changes on the local one only, query settings last', () => {
    const ddl = afterMigrations()
    const statements = ddl.translate(`ALTER TABLE ${db}.conversations
      ADD COLUMN IF NOT EXISTS x Array(String) DEFAULT splitByChar(',', 'a,b') COMMENT 'x, y',
      ADD INDEX IF NOT EXISTS x_index x TYPE bloom_filter(0.01) GRANULARITY 1,
      MODIFY TTL toDateTime(event_time) + INTERVAL 30 DAY
      SETTINGS mutations_sync = 1`)
    expect(statements.map(one)).toEqual([
      `ALTER TABLE ${db}.conversations_local ON CLUSTER va_cluster ADD COLUMN IF NOT EXISTS x Array(String) DEFAULT splitByChar(',', 'a,b') COMMENT 'x, y', ` +
        'ADD INDEX IF NOT EXISTS x_index x TYPE bloom_filter(0.01) GRANULARITY 1, ' +
        'MODIFY TTL toDateTime(event_time) + INTERVAL 30 DAY SETTINGS mutations_sync = 1',
      `ALTER TABLE ${db}.conversations ON CLUSTER va_cluster ADD COLUMN IF NOT EXISTS x Array(String) DEFAULT splitByChar(',', 'a,b') COMMENT 'x, y'`,
    ])
    expect(ddl.translate(`ALTER TABLE ${db}.conversations MATERIALIZE INDEX x_index`).map(one)).toEqual([
      `ALTER TABLE ${db}.conversations_local ON CLUSTER va_cluster MATERIALIZE INDEX x_index`,
    ])
  })

  it("EXCHANGE swaps the shards' tables and makes both Distributed tables again from them", () => {
    const ddl = new ClusterDdl(
      layout,
      new Map([
        ['t', 'sharded'],
        ['t_new', 'sharded'],
      ]) as Catalog,
    )
    expect(ddl.translate(`EXCHANGE TABLES ${db}.t AND ${db}.t_new`).map(one)).toEqual([
      `EXCHANGE TABLES ${db}.t_local AND ${db}.t_new_local ON CLUSTER va_cluster`,
      `CREATE OR REPLACE TABLE ${db}.t ON CLUSTER va_cluster AS ${db}.t_local ENGINE = Distributed(va_cluster, ${db}, t_local, cityHash64(session_id))`,
      `CREATE OR REPLACE TABLE ${db}.t_new ON CLUSTER va_cluster AS ${db}.t_new_local ENGINE = Distributed(va_cluster, ${db}, t_new_local, cityHash64(session_id))`,
    ])
  })

  it('RENAME moves the local table and makes the Distributed table again under the new name', () => {
    const ddl = new ClusterDdl(
      layout,
      new Map([
        ['old', 'sharded'],
        ['v', 'view'],
      ]) as Catalog,
    )
    expect(ddl.translate(`RENAME TABLE ${db}.old TO ${db}.renamed, ${db}.v TO ${db}.w`).map(one)).toEqual([
      `RENAME TABLE ${db}.old_local TO ${db}.renamed_local ON CLUSTER va_cluster`,
      `DROP TABLE IF EXISTS ${db}.old ON CLUSTER va_cluster`,
      `CREATE TABLE IF NOT EXISTS ${db}.renamed ON CLUSTER va_cluster AS ${db}.renamed_local ENGINE = Distributed(va_cluster, ${db}, renamed_local, cityHash64(session_id))`,
      `RENAME TABLE ${db}.v TO ${db}.w ON CLUSTER va_cluster`,
    ])
    expect([...ddl.tables]).toEqual([
      ['renamed', 'sharded'],
      ['w', 'view'],
    ])
  })

  it('DROP of a table drops the Distributed and the local table; of a view, the view', () => {
    const ddl = afterMigrations()
    expect(ddl.translate(`DROP TABLE IF EXISTS ${db}.handoffs`).map(one)).toEqual([
      `DROP TABLE IF EXISTS ${db}.handoffs ON CLUSTER va_cluster`,
      `DROP TABLE IF EXISTS ${db}.handoffs_local ON CLUSTER va_cluster`,
    ])
    expect(ddl.translate(`DROP VIEW ${db}.campaigns`).map(one)).toEqual([
      `DROP VIEW ${db}.campaigns ON CLUSTER va_cluster`,
    ])
    expect(ddl.translate(`DROP TABLE IF EXISTS ${db}.agent_latency_minute_mv SYNC`).map(one)).toEqual([
      `DROP TABLE IF EXISTS ${db}.agent_latency_minute_mv ON CLUSTER va_cluster SYNC`,
    ])
  })

  it('INSERT … SELECT: a copy runs shard by shard; anything else is placed by the sharding key; both wait for the shards', () => {
    const ddl = afterMigrations()
    expect(
      one(
        ddl.translate(
          `INSERT INTO ${db}.handoffs SELECT * FROM ${db}.conversation_items\nSETTINGS insert_deduplication_token = 'x'`,
        )[0]!,
      ),
    ).toBe(
      `INSERT INTO ${db}.handoffs SELECT * FROM ${db}.conversation_items SETTINGS insert_deduplication_token = 'x', ` +
        'distributed_foreground_insert = 1, parallel_distributed_insert_select = 2',
    )
    expect(
      one(
        ddl.translate(
          `INSERT INTO ${db}.agent_latency_minute SELECT agent_id, max(version) FROM ${db}.conversations FINAL GROUP BY agent_id`,
        )[0]!,
      ),
    ).toBe(
      `INSERT INTO ${db}.agent_latency_minute SELECT agent_id, max(version) FROM ${db}.conversations FINAL GROUP BY agent_id ` +
        "SETTINGS distributed_foreground_insert = 1, distributed_product_mode = 'global'",
    )
  })

  it('a closing check on system tables asks about the local tables and their Replicated engine', () => {
    const [check] =
      afterMigrations().translate(`SELECT throwIf(count() != 2, 'ReplacingMergeTree tables missing')
      FROM system.tables WHERE database = '${db}' AND name IN ('conversations', 'campaigns')
      AND engine_full LIKE 'ReplacingMergeTree(version, is\\\\_deleted)%' AND engine LIKE 'MergeTree()%'`)
    expect(one(check!)).toBe(
      `SELECT throwIf(count() != 2, 'ReplacingMergeTree tables missing') FROM system.tables WHERE database = '${db}' ` +
        "AND name IN ('conversations_local', 'campaigns') " +
        "AND engine_full LIKE 'ReplicatedReplacingMergeTree(%, %, version, is\\\\_deleted)%' AND engine LIKE 'ReplicatedMergeTree(%)%'",
    )
    const data = `SELECT throwIf(count() > 0) FROM ${db}.conversations WHERE agent_id = 'conversations'`
    expect(afterMigrations().translate(data)).toEqual([data])
  })

  it('a table without session_id is kept whole on every node under its own name, written once', () => {
    const ddl = new ClusterDdl(layout, new Map([['feed', 'sharded']]) as Catalog)
    expect(
      ddl
        .translate(`CREATE TABLE IF NOT EXISTS ${db}.audit (id UUID, version UInt64)
          ENGINE = ReplacingMergeTree(version) ORDER BY id`)
        .map(one),
    ).toEqual([
      `CREATE TABLE IF NOT EXISTS ${db}.audit ON CLUSTER va_cluster (id UUID, version UInt64) ` +
        "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{uuid}/all', '{shard}-{replica}', version) ORDER BY id",
    ])
    expect(ddl.tables.get('audit')).toBe('replicated')
    expect(ddl.translate(`ALTER TABLE ${db}.audit ADD COLUMN note String`).map(one)).toEqual([
      `ALTER TABLE ${db}.audit ON CLUSTER va_cluster ADD COLUMN note String`,
    ])
    const insert = `INSERT INTO ${db}.audit SELECT generateUUIDv4(), 1`
    expect(ddl.translate(insert)).toEqual([insert])
    // A view on each shard may write its share into it: replication gathers the shares everywhere.
    expect(
      one(
        ddl.translate(
          `CREATE MATERIALIZED VIEW ${db}.audit_mv TO ${db}.audit AS SELECT 1 FROM ${db}.feed`,
        )[0]!,
      ),
    ).toBe(
      `CREATE MATERIALIZED VIEW ${db}.audit_mv ON CLUSTER va_cluster TO ${db}.audit AS SELECT 1 FROM ${db}.feed_local`,
    )
    expect(ddl.translate(`DROP TABLE IF EXISTS ${db}.audit`).map(one)).toEqual([
      `DROP TABLE IF EXISTS ${db}.audit ON CLUSTER va_cluster`,
    ])
  })

  it('OPTIMIZE … FINAL rewrites the local tables on every node', () => {
    expect(afterMigrations().translate(`OPTIMIZE TABLE ${db}.campaign_items FINAL`).map(one)).toEqual([
      `OPTIMIZE TABLE ${db}.campaign_items_local ON CLUSTER va_cluster FINAL`,
    ])
    expect(() => afterMigrations().translate(`OPTIMIZE TABLE ${db}.campaigns FINAL`)).toThrow(
      /OPTIMIZE of a view/,
    )
  })

  it('TRUNCATE empties the local tables', () => {
    expect(afterMigrations().translate(`TRUNCATE TABLE IF EXISTS ${db}.campaign_items`).map(one)).toEqual([
      `TRUNCATE TABLE IF EXISTS ${db}.campaign_items_local ON CLUSTER va_cluster`,
    ])
  })

  it('the 0004 rebuild in cluster form: copy per shard, exchange of local tables, Distributed tables remade', () => {
    const rebuild = clusterForm[migrations.findIndex((migration) => migration.version === 4)]!.map(one)
    const at = (prefix: string) => rebuild.findIndex((statement) => statement.startsWith(prefix))
    const copy = at(`INSERT INTO ${db}.conversations_0004 SELECT * FROM ${db}.conversations `)
    const exchange = at(`EXCHANGE TABLES ${db}.conversations_local AND ${db}.conversations_0004_local`)
    const remade = at(`CREATE OR REPLACE TABLE ${db}.conversations ON CLUSTER`)
    const dropped = at(`DROP TABLE IF EXISTS ${db}.conversations_0004_local`)
    expect([copy, exchange, remade, dropped].every((index) => index >= 0)).toBe(true)
    expect(copy < exchange && exchange < remade && remade < dropped).toBe(true)
    expect(rebuild[copy]).toContain('parallel_distributed_insert_select = 2')
  })
})

describe('statements the cluster form refuses, with the reason', () => {
  const refused: [string, string, RegExp][] = [
    ['an unknown statement kind', `DETACH TABLE ${db}.conversations`, /does not know this kind/],
    ['SYSTEM', 'SYSTEM STOP MERGES', /does not know this kind/],
    [
      'a Null feed without session_id',
      `CREATE TABLE ${db}.f (agent_id String) ENGINE = Null`,
      /a Null feed needs a session_id column/,
    ],
    ['a TRUNCATE of a view', `TRUNCATE TABLE ${db}.campaigns`, /TRUNCATE of a view/],
    [
      'an engine with no cluster form',
      `CREATE TABLE ${db}.m (session_id String) ENGINE = Memory`,
      /engine Memory has no cluster form/,
    ],
    [
      'an already replicated engine',
      `CREATE TABLE ${db}.m (session_id String) ENGINE = ReplicatedMergeTree('/p', 'r') ORDER BY session_id`,
      /engine ReplicatedMergeTree has no cluster form/,
    ],
    [
      'CREATE TABLE … AS SELECT',
      `CREATE TABLE ${db}.c ENGINE = MergeTree ORDER BY session_id AS SELECT session_id FROM ${db}.conversations`,
      /without a column list/,
    ],
    [
      'a copy of an unknown table',
      `CREATE TABLE ${db}.c AS ${db}.nowhere ENGINE = MergeTree ORDER BY session_id`,
      /not a table the migrations created/,
    ],
    [
      'a materialized view without TO',
      `CREATE MATERIALIZED VIEW ${db}.mv ENGINE = MergeTree ORDER BY session_id AS SELECT session_id FROM ${db}.conversations`,
      /needs TO <table>/,
    ],
    [
      'a materialized view over an unqualified table',
      `CREATE MATERIALIZED VIEW ${db}.mv TO ${db}.conversations AS SELECT * FROM conversations`,
      /without its database/,
    ],
    [
      'a materialized view reading a view',
      `CREATE MATERIALIZED VIEW ${db}.mv TO ${db}.conversations AS SELECT * FROM ${db}.campaigns`,
      /reads the view/,
    ],
    [
      'an ALTER command it does not know',
      `ALTER TABLE ${db}.conversations FREEZE`,
      /does not know this ALTER command/,
    ],
    [
      'an ALTER of a table never created',
      `ALTER TABLE ${db}.nowhere ADD COLUMN x UInt8`,
      /not a table the migrations created/,
    ],
    [
      'an ALTER of a materialized view',
      `ALTER TABLE ${db}.agent_latency_minute_mv MODIFY QUERY SELECT 1`,
      /drop and create it again/,
    ],
    ['a DROP of a table never created, without IF EXISTS', `DROP TABLE ${db}.nowhere`, /never created/],
    [
      'an INSERT … VALUES',
      `INSERT INTO ${db}.conversations (session_id) VALUES ('a')`,
      /INSERT without SELECT/,
    ],
    [
      'a table outside the database',
      `ALTER TABLE other.conversations ADD COLUMN x UInt8`,
      /voice_analytics\.<name>/,
    ],
  ]
  it.each(refused)('%s', (_, statement, reason) => {
    expect(() => afterMigrations().translate(statement)).toThrow(ClusterDdlError)
    expect(() => afterMigrations().translate(statement)).toThrow(reason)
  })

  it('a cluster name that is not a plain identifier', () => {
    expect(() => new ClusterDdl({ cluster: "va'; DROP", database: db })).toThrow(/not a plain identifier/)
  })
})

describe('retention in cluster mode', () => {
  it("alters the TTL of the shards' local tables, ON CLUSTER, and only where it differs", () => {
    const statements = clusterRetentionStatements(
      db,
      'va_cluster',
      [
        {
          name: 'conversations',
          engine_full:
            'Distributed(va_cluster, voice_analytics, conversations_local, cityHash64(session_id))',
        },
        {
          name: 'conversations_local',
          engine_full:
            "ReplicatedReplacingMergeTree('/p', '{replica}', version, is_deleted) PARTITION BY x ORDER BY y",
        },
        {
          name: 'handoffs_local',
          engine_full:
            'ReplicatedReplacingMergeTree(…) TTL toDateTime(event_time) + toIntervalDay(30) SETTINGS a = 1',
        },
        { name: 'agent_latency_minute_local', engine_full: 'ReplicatedReplacingMergeTree(…) ORDER BY y' },
      ],
      { conversationDays: 30, rollupDays: 400 },
    )
    expect(statements.map(one)).toEqual([
      `ALTER TABLE ${db}.conversations_local ON CLUSTER va_cluster MODIFY TTL toDateTime(event_time) + INTERVAL 30 DAY`,
      `ALTER TABLE ${db}.agent_latency_minute_local ON CLUSTER va_cluster MODIFY TTL toDateTime(minute) + INTERVAL 400 DAY`,
    ])
  })
})
