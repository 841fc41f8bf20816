import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import type { ClickHouseClient } from './clickhouse.ts'
import { clusterMigrationStatements } from './clickhouse-cluster-ddl.ts'
import { ClusterDdlError, MigrationError } from './clickhouse-errors.ts'
import { everywhereArguments } from './cluster-ddl-layout.ts'

// Versioned ClickHouse migrations: schemas/clickhouse/migrations/NNNN_name.sql, applied in order
// and recorded in <database>.schema_migrations. Every statement is idempotent (IF NOT EXISTS), so
// two processes migrating at once, or a run cut short, do no harm; an applied migration whose file
// changed afterwards is refused (write a new migration instead). With a cluster name
// (CLICKHOUSE_CLUSTER), the statements run in their cluster form (clickhouse-cluster-ddl.ts): ON
// CLUSTER, Replicated engines under <table>_local, Distributed tables under the contract names.
export const migrationsDir = new URL('../../schemas/clickhouse/migrations/', import.meta.url)

export interface Migration {
  version: number
  name: string
  checksum: string
  statements: string[]
}

const fileName = /^(\d{4})_([a-z0-9_]+)\.sql$/

/** Statements of a migration file: `--` comment lines dropped, split at a `;` that ends a line. */
export function splitStatements(sql: string): string[] {
  const lines = sql.split('\n').filter((line) => !line.trim().startsWith('--'))
  return lines
    .join('\n')
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0)
}

export function parseMigration(file: string, sql: string, database: string): Migration {
  const match = fileName.exec(file)
  if (!match) throw new MigrationError(`migration file ${file} is not named NNNN_name.sql`)
  return {
    version: Number(match[1]),
    name: match[2]!,
    checksum: createHash('sha256').update(sql).digest('hex'),
    statements: splitStatements(sql).map((statement) => statement.replaceAll('{database}', database)),
  }
}

export function loadMigrations(database: string, dir: URL = migrationsDir): Migration[] {
  const migrations = readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => parseMigration(file, readFileSync(new URL(file, dir), 'utf8'), database))
  const seen = new Set<number>()
  for (const migration of migrations) {
    if (seen.has(migration.version))
      throw new MigrationError(`two migration files have version ${migration.version}`)
    seen.add(migration.version)
  }
  return migrations
}

export interface MigrationReport {
  applied: Migration[]
  alreadyApplied: number
}

interface AppliedRow {
  version: number
  name: string
  checksum: string
}

/**
 * The database and the table that records applied migrations. In a cluster the record is replicated
 * to every node (one Keeper path, no {shard}), so a migrator on any node sees what was applied;
 * its replica name joins the shard's and the replica's macros, unique in the cluster.
 */
export function migrationBookkeeping(database: string, cluster?: string): string[] {
  const columns =
    "(version UInt32, name String, checksum String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3))"
  if (!cluster)
    return [
      `CREATE DATABASE IF NOT EXISTS ${database}`,
      `CREATE TABLE IF NOT EXISTS ${database}.schema_migrations ${columns}
      ENGINE = ReplacingMergeTree ORDER BY version`,
    ]
  return [
    `CREATE DATABASE IF NOT EXISTS ${database} ON CLUSTER ${cluster}`,
    `CREATE TABLE IF NOT EXISTS ${database}.schema_migrations ON CLUSTER ${cluster} ${columns}
      ENGINE = ReplicatedReplacingMergeTree(${everywhereArguments}) ORDER BY version`,
  ]
}

/** Translated as a whole: a statement's cluster form depends on what the ones before created. */
function clusterForm(migrations: Migration[], cluster: string, database: string): string[][] {
  try {
    return clusterMigrationStatements(migrations, { cluster, database })
  } catch (error) {
    if (error instanceof ClusterDdlError)
      throw new MigrationError(`migrations cannot run on cluster ${cluster}: ${error.message}`)
    throw error
  }
}

export async function runMigrations(
  client: ClickHouseClient,
  database: string,
  migrations: Migration[] = loadMigrations(database),
  cluster?: string,
): Promise<MigrationReport> {
  for (const query of migrationBookkeeping(database, cluster)) await client.command({ query })
  const statements = cluster
    ? clusterForm(migrations, cluster, database)
    : migrations.map((migration) => migration.statements)
  const result = await client.query({
    query: `SELECT version, any(name) AS name, any(checksum) AS checksum
      FROM ${database}.schema_migrations GROUP BY version`,
    format: 'JSONEachRow',
  })
  const applied = new Map((await result.json<AppliedRow>()).map((row) => [Number(row.version), row]))
  const report: MigrationReport = { applied: [], alreadyApplied: 0 }
  for (const [index, migration] of migrations.entries()) {
    const done = applied.get(migration.version)
    if (done) {
      if (done.checksum !== migration.checksum)
        throw new MigrationError(
          `migration ${migration.version}_${migration.name} was applied with other content ` +
            `(checksum ${done.checksum.slice(0, 12)}, file ${migration.checksum.slice(0, 12)}): ` +
            'applied migrations must not change; add a new migration instead',
        )
      report.alreadyApplied++
      continue
    }
    for (const statement of statements[index]!) {
      try {
        await client.command({ query: statement })
      } catch (error) {
        throw new MigrationError(
          `migration ${migration.version}_${migration.name} failed: ${(error as Error).message}\n${statement.slice(0, 300)}`,
        )
      }
    }
    await client.insert({
      table: `${database}.schema_migrations`,
      values: [{ version: migration.version, name: migration.name, checksum: migration.checksum }],
      format: 'JSONEachRow',
      // Every insert names its own token: chDB keeps settings for the session.
      clickhouse_settings: {
        insert_deduplication_token: `migration-${migration.version}-${migration.checksum}`,
      },
    })
    report.applied.push(migration)
  }
  return report
}
