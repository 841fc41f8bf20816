import { describe, expect, it } from 'vitest'
import { MigrationError } from '../../core/clickhouse/clickhouse-errors.ts'
import { loadMigrations, parseMigration, runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { createLogger } from '../../core/runtime/logger.ts'
import { prepareClickHouse } from '../../services/worker/worker.ts'
import { database, migratedEmbeddedDatabase, tempDataDir } from '../support/embedded-clickhouse.ts'
import { logSink } from '../support/log-sink.ts'
import { workerConfig } from '../support/worker-settings.ts'

// An applied migration whose text changed is refused, by class: the worker stops at start instead
// of retrying a refusal no retry can lift (an operator must add a new migration instead).
const engine = migratedEmbeddedDatabase('migration-checksum')

describe('migrations applied with other content', () => {
  it('runMigrations refuses a changed applied migration with a MigrationError naming it', async () => {
    const migrations = loadMigrations(database)
    const last = migrations.at(-1)!
    const changed = parseMigration(
      `${String(last.version).padStart(4, '0')}_${last.name}.sql`,
      `${last.statements.join(';\n')};\n-- edited after it was applied\n`,
      database,
    )
    expect(changed.checksum).not.toBe(last.checksum)
    const refusal = await runMigrations(engine.client, database, [...migrations.slice(0, -1), changed]).catch(
      (error: unknown) => error,
    )
    expect(refusal).toBeInstanceOf(MigrationError)
    expect((refusal as Error).message).toMatch(
      new RegExp(`migration ${last.version}_${last.name} was applied with other content`),
    )
  })

  it('the worker gives up at once on it, without a retry', async () => {
    await engine.client.command({
      query: `ALTER TABLE ${database}.schema_migrations UPDATE checksum = 'edited' WHERE version = 1`,
      clickhouse_settings: { mutations_sync: '1' },
    })
    const data = tempDataDir('migration-checksum-config')
    const { sink, logs } = logSink()
    const logger = createLogger('worker-test', 'warn', sink)
    try {
      const refusal = await prepareClickHouse(
        engine.client,
        workerConfig('unused', data.dir),
        logger,
        new AbortController().signal,
        { baseMs: 1, maxMs: 1 },
      ).catch((error: unknown) => error)
      expect(refusal).toBeInstanceOf(MigrationError)
      expect(logs.filter((line) => line.includes('retrying'))).toEqual([])
    } finally {
      data.remove()
    }
  })
})
