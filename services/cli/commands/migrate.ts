import type { Command } from 'commander'
import { runMigrations } from '../../core/clickhouse-migrations.ts'
import { openClickHouse } from '../../core/clickhouse-open.ts'
import { applyRetention } from '../../core/clickhouse-retention.ts'
import { loadConfig } from '../../core/env.ts'

// `migrate`: applies the ClickHouse migrations not applied yet and the configured retention
// (the worker does the same at start).
export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply the ClickHouse migrations (schemas/clickhouse/migrations) and the configured TTL')
    .action(async () => {
      const config = loadConfig()
      const client = openClickHouse(
        config,
        'the worker migrates at start, or stop that process and run migrate again',
      )
      try {
        const report = await runMigrations(client, config.CLICKHOUSE_DATABASE)
        for (const migration of report.applied)
          process.stdout.write(`applied ${String(migration.version).padStart(4, '0')}_${migration.name}\n`)
        const retention = await applyRetention(client, config.CLICKHOUSE_DATABASE, {
          conversationDays: config.CLICKHOUSE_TTL_DAYS,
          rollupDays: config.CLICKHOUSE_ROLLUP_TTL_DAYS,
        })
        for (const statement of retention) process.stdout.write(`${statement}\n`)
        process.stdout.write(
          `${config.CLICKHOUSE_DATABASE}: ${report.applied.length} migration(s) applied, ${report.alreadyApplied} already applied\n`,
        )
      } finally {
        await client.close()
      }
    })
}
