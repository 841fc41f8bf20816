import { randomBytes } from 'node:crypto'
import { createClickHouse, describeClickHouse } from '../core/clickhouse.ts'
import { loadConfig } from '../core/env.ts'
import { loadOrCreateLocalSecret, localStateDir } from '../core/local-secret.ts'
import { createLogger, type Logger } from '../core/logger.ts'
import { runUntilSignal } from '../core/run-until-signal.ts'
import { parseWebhookSecrets } from '../core/webhook-secrets.ts'
import { startIngress } from '../ingress/main.ts'
import { startWorker } from '../worker/worker.ts'
import { type SqlEndpoint, startSqlEndpoint } from './sql-endpoint.ts'

// `npm run dev`: the whole pipeline in one process (ingress + worker), and, with the embedded
// ClickHouse, a local read-only SQL endpoint: this process owns the data directory, so
// `voice-analytics query` asks it. Without WEBHOOK_SECRETS a secret for this run is made up.
if (import.meta.main) {
  const logger = createLogger('dev')
  await runUntilSignal(logger, () => startDevPipeline(logger), 'shutting down')
}

async function startDevPipeline(logger: Logger): Promise<() => Promise<void>> {
  const config = loadConfig()
  // A secret made up for this run is printed so it can be used; a configured one never is.
  const madeUp = config.WEBHOOK_SECRETS === '' ? randomBytes(18).toString('base64url') : undefined
  if (madeUp) {
    config.WEBHOOK_SECRETS = `dev=${madeUp}`
    logger.warn('WEBHOOK_SECRETS is not set: using a secret made up for this run (see the webhook URL below)')
  }
  const clickhouse = createClickHouse(config)
  const worker = await startWorker(config, logger.child({ service: 'worker' }), { clickhouse })
  // Read-only sessions on the same data directory, one per query, for analysts' SQL.
  const sql: SqlEndpoint | undefined = config.CLICKHOUSE_URL
    ? undefined
    : await startSqlEndpoint(
        () => createClickHouse(config),
        config.DEV_SQL_PORT,
        await loadOrCreateLocalSecret(localStateDir(), 'sql-endpoint-token'),
      )
  const ingress = await startIngress(config, logger.child({ service: 'ingress' }))
  logger.info(
    {
      ingress: ingress.url,
      workerMetrics: worker.metricsUrl,
      sqlEndpoint: sql?.url,
      clickhouse: describeClickHouse(config),
    },
    'dev pipeline running',
  )
  const source = parseWebhookSecrets(config.WEBHOOK_SECRETS)[0]!.source
  process.stderr.write(
    `\nWebhook URL: ${ingress.url}/webhooks/conversation-complete?token=${madeUp ?? `<the ${source} secret of WEBHOOK_SECRETS>`}\n` +
      (sql
        ? `SQL: voice-analytics query "SELECT count() FROM voice_analytics.conversations" (served at ${sql.url})\n\n`
        : '\n'),
  )
  return async () => {
    await ingress.close()
    await worker.stop()
    await sql?.close()
    await clickhouse.close()
  }
}
