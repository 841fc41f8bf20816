import { afterAll, beforeAll } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { loadMigrations, runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { database, embeddedClickHouse, tempDataDir } from '../support/embedded-clickhouse.ts'

// What every migration's own test starts from: an embedded database migrated up to just before that
// migration (opened in beforeAll, before the test's own hooks add rows; closed and removed in afterAll).

/** The database as the migrations before `version` left it; `client` is set once beforeAll ran. */
export function databaseBeforeMigration(version: number): { client: ClickHouseClient } {
  const data = tempDataDir(`migration-${String(version).padStart(4, '0')}`)
  const opened = { client: undefined as unknown as ClickHouseClient }
  beforeAll(async () => {
    opened.client = embeddedClickHouse(data.dir)
    await runMigrations(
      opened.client,
      database,
      loadMigrations(database).filter((migration) => migration.version < version),
    )
  })
  afterAll(async () => {
    await opened.client?.close()
    data.remove()
  })
  return opened
}

/** Runs migration `version`'s statements once more, as a run cut short and started again would. */
export async function runMigrationAgain(client: ClickHouseClient, version: number): Promise<void> {
  const migration = loadMigrations(database).find((candidate) => candidate.version === version)
  if (!migration) throw new Error(`no migration ${version}`)
  for (const statement of migration.statements) await client.command({ query: statement })
}

/** Runs the migrations up to and including `version` (not the ones after it: they have tests of their own). */
export function migrateThrough(client: ClickHouseClient, version: number) {
  return runMigrations(
    client,
    database,
    loadMigrations(database).filter((migration) => migration.version <= version),
  )
}

/**
 * Today's transform writes the turn-taking columns of conversations (0018), their agent configuration
 * fingerprint and the agent versions (0019) and their origin (0020): a database before them gets them first, so that today's
 * rows fit it as they did the tables of then. 0018, 0019 and 0020 only add columns and a table that no
 * earlier migration reads or changes; their own runs later find them there (IF NOT EXISTS) and
 * record themselves.
 */
export async function fitTodaysRows(client: ClickHouseClient): Promise<void> {
  await runMigrationAgain(client, 18)
  await runMigrationAgain(client, 19)
  await runMigrationAgain(client, 20)
}
