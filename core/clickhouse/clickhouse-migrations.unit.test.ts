import { describe, expect, it } from 'vitest'
import type { ClickHouseClient } from './clickhouse.ts'
import { MigrationError } from './clickhouse-errors.ts'
import { parseMigration, runMigrations } from './clickhouse-migrations.ts'

// A migration the cluster form cannot translate stops the run as a MigrationError (the
// ClusterDdlError recognised by its class), before any of its statements runs.
describe('runMigrations on a cluster', () => {
  it('refuses a statement the cluster form does not know as a MigrationError, running none of it', async () => {
    const commands: string[] = []
    const client = {
      command: async ({ query }: { query: string }) => {
        commands.push(query)
      },
      query: async () => ({ json: async () => [] }),
    } as unknown as ClickHouseClient
    const migration = parseMigration('0001_detach.sql', 'DETACH TABLE {database}.conversations;\n', 'db')
    const refusal = await runMigrations(client, 'db', [migration], 'va_cluster').catch(
      (error: unknown) => error,
    )
    expect(refusal).toBeInstanceOf(MigrationError)
    expect((refusal as Error).message).toBe(
      'migrations cannot run on cluster va_cluster: cluster mode does not know this kind of statement: DETACH TABLE db.conversations',
    )
    expect(commands.filter((command) => command.includes('DETACH'))).toEqual([])
  })
})
