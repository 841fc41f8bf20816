import type { Command } from 'commander'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { openClickHouse } from '../../core/clickhouse/clickhouse-open.ts'
import { applyRetention } from '../../core/clickhouse/clickhouse-retention.ts'
import { loadConfig } from '../../core/settings/env.ts'
import {
  addRetentionOptions,
  type RetentionOptions,
  retentionFromOptions,
} from '../retention/retention-options.ts'

// `migrate`: applies the ClickHouse migrations not applied yet (the worker does the same at start),
// and the retention given with --ttl-days / --rollup-ttl-days, if any.
export function registerMigrateCommand(program: Command): void {
  const command = program
    .command('migrate')
    .description(
      'apply the ClickHouse migrations (schemas/clickhouse/migrations); the TTL only with --ttl-days',
    )
  addRetentionOptions(command).action(async (options: RetentionOptions) => {
    const config = loadConfig()
    const client = openClickHouse(
      config,
      'the worker migrates at start, or stop that process and run migrate again',
    )
    try {
      const report = await runMigrations(
        client,
        config.CLICKHOUSE_DATABASE,
        undefined,
        config.CLICKHOUSE_CLUSTER,
      )
      for (const migration of report.applied)
        process.stdout.write(`applied ${String(migration.version).padStart(4, '0')}_${migration.name}\n`)
      const retention = await applyRetention(
        client,
        config.CLICKHOUSE_DATABASE,
        retentionFromOptions(options),
        config.CLICKHOUSE_CLUSTER,
      )
      for (const statement of retention) process.stdout.write(`${statement}\n`)
      process.stdout.write(
        `${config.CLICKHOUSE_DATABASE}: ${report.applied.length} migration(s) applied, ${report.alreadyApplied} already applied\n`,
      )
    } finally {
      await client.close()
    }
  })
}
