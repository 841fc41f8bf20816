import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import type { ClickHouseClient } from './clickhouse.ts'

// Versioned ClickHouse migrations: schemas/clickhouse/migrations/NNNN_name.sql, applied in order
// and recorded in <database>.schema_migrations. Every statement is idempotent (IF NOT EXISTS), so
// two processes migrating at once, or a run cut short, do no harm; an applied migration whose file
// changed afterwards is refused (write a new migration instead).
export const migrationsDir = new URL('../../schemas/clickhouse/migrations/', import.meta.url)

export interface Migration {
  version: number
  name: string
  checksum: string
  statements: string[]
}

export class MigrationError extends Error {
  override name = 'MigrationError'
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

export async function runMigrations(
  client: ClickHouseClient,
  database: string,
  migrations: Migration[] = loadMigrations(database),
): Promise<MigrationReport> {
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` })
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS ${database}.schema_migrations
      (version UInt32, name String, checksum String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3))
      ENGINE = ReplacingMergeTree ORDER BY version`,
  })
  const result = await client.query({
    query: `SELECT version, any(name) AS name, any(checksum) AS checksum
      FROM ${database}.schema_migrations GROUP BY version`,
    format: 'JSONEachRow',
  })
  const applied = new Map((await result.json<AppliedRow>()).map((row) => [Number(row.version), row]))
  const report: MigrationReport = { applied: [], alreadyApplied: 0 }
  for (const migration of migrations) {
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
    for (const statement of migration.statements) {
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
