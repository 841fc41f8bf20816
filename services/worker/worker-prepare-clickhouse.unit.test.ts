import { describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { MigrationError } from '../../core/clickhouse/clickhouse-errors.ts'
import { loadMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { createLogger } from '../../core/runtime/logger.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { prepareClickHouse } from './worker.ts'

// ClickHouse at the worker's start: whatever fails is retried until it heals, except a
// MigrationError (recognised by its class), which no retry can lift: the start fails at once.
const config = loadConfig({})
const database = config.CLICKHOUSE_DATABASE
const migrations = loadMigrations(database)

/** A client whose schema_migrations holds `applied`; `failFirst` commands fail before any succeeds. */
function fakeClickHouse(applied: { version: number; checksum: string }[], failFirst = 0) {
  let attempts = 0
  const client = {
    command: async ({ query }: { query: string }) => {
      if (query.startsWith('CREATE DATABASE')) attempts++
      if (attempts <= failFirst) throw new Error('connect ECONNREFUSED 127.0.0.1:8123')
    },
    query: async ({ query }: { query: string }) => ({
      json: async () =>
        query.includes('schema_migrations') ? applied.map((row) => ({ ...row, name: 'applied' })) : [],
    }),
  } as unknown as ClickHouseClient
  return { client, attempts: () => attempts }
}

const prepare = (client: ClickHouseClient) => {
  // A retry loop that does not end is stopped here, failing the test with a WorkerStoppingError.
  const signal = AbortSignal.timeout(2_000)
  return prepareClickHouse(client, config, createLogger('test', 'silent'), signal, { baseMs: 1, maxMs: 1 })
}

describe('prepareClickHouse', () => {
  it('gives up at once on a MigrationError (an applied migration that changed)', async () => {
    const { client, attempts } = fakeClickHouse([{ version: migrations[0]!.version, checksum: 'edited' }])
    const refusal = await prepare(client).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(MigrationError)
    expect(attempts()).toBe(1)
  })

  it('retries any other failure until ClickHouse answers', async () => {
    const applied = migrations.map(({ version, checksum }) => ({ version, checksum }))
    const { client, attempts } = fakeClickHouse(applied, 2)
    await prepare(client)
    expect(attempts()).toBe(3)
  })
})
