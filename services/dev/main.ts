import { randomBytes } from 'node:crypto'
import { createClickHouse, describeClickHouse } from '../core/clickhouse.ts'
import { loadConfig } from '../core/env.ts'
import { createLogger } from '../core/logger.ts'
import { startIngress } from '../ingress/main.ts'
import { startWorker } from '../worker/worker.ts'
import { type SqlEndpoint, startSqlEndpoint } from './sql-endpoint.ts'

// `npm run dev`: the whole pipeline in one process (ingress + worker), and, with the embedded
// ClickHouse, a local read-only SQL endpoint: this process owns the data directory, so
// `voice-analytics query` asks it. Without WEBHOOK_SECRETS a secret for this run is made up.
if (import.meta.main) {
  const logger = createLogger('dev')
  try {
    const config = loadConfig()
    if (config.WEBHOOK_SECRETS === '') {
      config.WEBHOOK_SECRETS = `dev=${randomBytes(18).toString('base64url')}`
      logger.warn(
        'WEBHOOK_SECRETS is not set: using a secret made up for this run (see the webhook URL below)',
      )
    }
    const clickhouse = createClickHouse(config)
    const worker = await startWorker(config, logger.child({ service: 'worker' }), { clickhouse })
    // A second session on the same data directory, read-only, for analysts' SQL.
    const readOnly = config.CLICKHOUSE_URL ? undefined : createClickHouse(config)
    let sql: SqlEndpoint | undefined
    if (readOnly) sql = await startSqlEndpoint(readOnly, config.DEV_SQL_PORT)
    const ingress = await startIngress(config, logger.child({ service: 'ingress' }))
    const secret = config.WEBHOOK_SECRETS.split(',')[0]!.split('=').slice(1).join('=')
    logger.info(
      {
        ingress: ingress.url,
        workerMetrics: worker.metricsUrl,
        sqlEndpoint: sql?.url,
        clickhouse: describeClickHouse(config),
      },
      'dev pipeline running',
    )
    process.stderr.write(
      `\nWebhook URL: ${ingress.url}/webhooks/conversation-complete?token=${secret}\n` +
        (sql
          ? `SQL: voice-analytics query "SELECT count() FROM voice_analytics.conversations" (served at ${sql.url})\n\n`
          : '\n'),
    )
    const shutdown = async (signal: string) => {
      logger.info({ signal }, 'shutting down')
      await ingress.close()
      await worker.stop()
      await sql?.close()
      await readOnly?.close()
      await clickhouse.close()
      process.exit(0)
    }
    process.once('SIGTERM', shutdown)
    process.once('SIGINT', shutdown)
  } catch (error) {
    logger.fatal(error instanceof Error ? error.message : String(error))
    process.exit(1)
  }
}
