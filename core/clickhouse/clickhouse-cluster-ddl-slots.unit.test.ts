import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from 'chdb'
import { afterAll, describe, expect, it } from 'vitest'
import { ClusterDdl } from './clickhouse-cluster-ddl.ts'
import { loadMigrations } from './clickhouse-migrations.ts'

// Why cluster DDL is rewritten from the checksummed single-server migrations rather than kept as
// templates (a second copy of every migration, to keep in step by hand): the rewrite is proven here
// to change nothing but its slots. For every statement of every migration, each statement of its
// cluster form, with the slots put back as the migration has them, parses to what the migration's
// statement parses to; every other statement the rewrite adds is a Distributed table over the local
// one. What the slots are filled with is clickhouse-cluster-ddl.unit.test.ts's to check.
// "Parses to" is compared on formatQuery: the engine's own parse printed back, whole. EXPLAIN AST
// leaves out ON CLUSTER, TO and AS targets and the values of SETTINGS (shown below), so a change
// there would go unseen.
const cluster = 'va_cluster'
const db = 'voice_analytics'
const dir = mkdtempSync(join(tmpdir(), 'va-cluster-slots-'))
const session = new Session(dir)
afterAll(() => {
  session.close()
  rmSync(dir, { recursive: true, force: true })
})

const quoted = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
/** The statement as the engine prints its parse: spacing, case, quoting and comments no longer count. */
const formatted = (sql: string) =>
  session.query(`SELECT formatQuery(${quoted(sql)})`, 'TSVRaw').replace(/\n$/, '')

/** A cluster statement with its slots put back as the single-server migration has them, formatted. */
function slotsPutBack(statement: string): string {
  return formatted(
    formatted(statement)
      // ON CLUSTER
      .replaceAll(` ON CLUSTER ${cluster}`, '')
      // the local table's name, in code and in a closing check's literals
      .replace(new RegExp(`\\b${db}\\.(\\w+)_local\\b`, 'g'), `${db}.$1`)
      .replace(/'(\w+)_local'/g, "'$1'")
      // the Replicated engine and its Keeper arguments; in a closing check, its engine pattern
      .replace(/\bReplicated(\w*MergeTree)\('[^']*', '[^']*'(?:, )?/g, '$1(')
      .replace(/'Replicated(\w*MergeTree)\(%, %, /g, "'$1(")
      .replace(/'Replicated(\w*MergeTree)\(%\)/g, "'$1()")
      .replace(/'Replicated(\w*MergeTree)(?=[%'])/g, "'$1")
      // the engine's insert deduplication window: a replicated table has its own
      .replace(/\b(?<!non_)replicated_deduplication_window\b/g, 'non_replicated_deduplication_window')
      // how an INSERT … SELECT reaches the shards
      .replace(
        /(?:, )?\b(?:distributed_foreground_insert = 1|parallel_distributed_insert_select = 2|distributed_product_mode = 'global')/g,
        '',
      )
      .replace(/^SETTINGS *$/gm, ''),
  )
}

const distributedTable = new RegExp(
  `^CREATE (?:OR REPLACE )?TABLE (?:IF NOT EXISTS )?${db}\\.(\\w+) ON CLUSTER ${cluster} AS ${db}\\.(\\w+)\\n` +
    `ENGINE = Distributed\\(${cluster}, ${db}, (\\w+), cityHash64\\(session_id\\)\\)$`,
)

/** Whether a statement the rewrite adds is the Distributed table, over its local table, of a table `original` names. */
function isDistributedTableOf(statement: string, original: string): boolean {
  const match = distributedTable.exec(formatted(statement))
  if (!match) return false
  const [, table, structure, local] = match
  return (
    structure === `${table}_local` &&
    local === structure &&
    new RegExp(`\\b${db}\\.${table}\\b`).test(original)
  )
}

const migrations = loadMigrations(db)
const ddl = new ClusterDdl({ cluster, database: db })
// Translated here, in order: a statement's cluster form depends on what the ones before created.
const statements = migrations.flatMap((migration) =>
  migration.statements.map((statement, n) => ({
    name: `${migration.version}_${migration.name} #${n + 1}: ${statement.replace(/\s+/g, ' ').slice(0, 60)}`,
    statement,
    clusterForm: ddl.translate(statement),
  })),
)

describe('the cluster form changes only the slots (ON CLUSTER, engine, local name)', () => {
  it('the migrations hold nothing the slots are put back from, so putting back is unambiguous', () => {
    expect(statements.length).toBeGreaterThanOrEqual(100)
    for (const { statement } of statements)
      expect(statement).not.toMatch(
        /_local\b|ON CLUSTER|Replicated|(?<!non_)replicated_deduplication_window|distributed_foreground_insert|parallel_distributed_insert_select|distributed_product_mode/,
      )
  })

  it.each(statements)('$name', ({ statement, clusterForm }) => {
    const original = formatted(statement)
    const own = clusterForm.filter((clusterStatement) => slotsPutBack(clusterStatement) === original)
    for (const added of clusterForm.filter((clusterStatement) => !own.includes(clusterStatement)))
      expect(
        isDistributedTableOf(added, statement),
        `neither the statement nor a Distributed table:\n${formatted(added)}\n\nthe migration's:\n${original}`,
      ).toBe(true)
    expect(own.length, 'no cluster statement is the migration statement with other slots').toBeGreaterThan(0)
  })
})

describe('the comparison sees every change outside the slots', () => {
  const [create] = migrations[0]!.statements
  const [local, distributed] = new ClusterDdl({ cluster, database: db }).translate(create!)

  it('a column dropped, a sort key or a setting changed: no longer the statement', () => {
    expect(slotsPutBack(local!)).toBe(formatted(create!))
    for (const changed of [
      local!.replace(/\n\s*call_sid Nullable\(String\),/, ''),
      local!.replace('ORDER BY (agent_id, event_time, session_id)', 'ORDER BY (agent_id, session_id)'),
      local!.replace('replicated_deduplication_window = 1000', 'replicated_deduplication_window = 100'),
    ]) {
      expect(changed).not.toBe(local)
      expect(slotsPutBack(changed)).not.toBe(formatted(create!))
    }
    expect(isDistributedTableOf(distributed!, create!)).toBe(true)
    expect(isDistributedTableOf(distributed!.replace('cityHash64(session_id)', 'rand()'), create!)).toBe(
      false,
    )
  })

  it('EXPLAIN AST would not: it is the same for another setting value and without ON CLUSTER', () => {
    const ast = (sql: string) => session.query(`EXPLAIN AST ${sql}`, 'TSVRaw')
    const changed = local!
      .replace('replicated_deduplication_window = 1000', 'replicated_deduplication_window = 100')
      .replace(` ON CLUSTER ${cluster}`, '')
    expect(ast(changed)).toBe(ast(local!))
    expect(formatted(changed)).not.toBe(formatted(local!))
  })
})
