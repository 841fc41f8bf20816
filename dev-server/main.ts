import { devWebhookSecretName } from '../cli/commands/send.ts'
import { createClickHouse, describeClickHouse } from '../core/clickhouse/clickhouse.ts'
import { createLogger, type Logger } from '../core/runtime/logger.ts'
import { runUntilSignal } from '../core/runtime/run-until-signal.ts'
import { loadOrCreateLocalSecret, localStateDir } from '../core/secrets/local-secret.ts'
import { parseWebhookSecrets } from '../core/secrets/webhook-secrets.ts'
import { loadConfig } from '../core/settings/env.ts'
import { checkStartup } from '../core/startup-diagnosis/startup-checks.ts'
import { startAssembler } from '../services/assembler/assembler.ts'
import { startIngress } from '../services/ingress/main.ts'
import { startWorker } from '../services/worker/worker.ts'
import { answerForget } from './endpoints/forget-endpoint.ts'
import { runStartedAt, watchFirstConversation } from './first-conversation.ts'
import { renderFirstConversation, renderNextSteps } from './next-steps.ts'
import { type SqlEndpoint, startSqlEndpoint } from './sql-endpoint.ts'
import { waitUntilReady } from './wait-until-ready.ts'

// `./run dev` / `npm run dev`: the whole pipeline in one process (ingress + worker + the OTLP
// assembler), and, with the
// embedded ClickHouse, a local read-only SQL endpoint: this process owns the data directory, so
// `voice-analytics query` asks it. Without WEBHOOK_SECRETS it uses a secret made up once and kept
// in the state directory (0600), where `voice-analytics send` finds it. The SQL endpoint also serves
// a read-only overview page at / (overview/). Then it says what to do next.
const processStartedAt = Math.round(performance.timeOrigin)

if (import.meta.main) {
  const logger = createLogger('dev')
  await runUntilSignal(logger, () => startDevPipeline(logger), 'shutting down')
}

async function startDevPipeline(logger: Logger): Promise<() => Promise<void>> {
  const config = loadConfig()
  await checkStartup(config, { kafka: true, registry: true, clickhouse: true }, logger)
  const madeUp = config.WEBHOOK_SECRETS === ''
  if (madeUp)
    config.WEBHOOK_SECRETS = `local=${await loadOrCreateLocalSecret(localStateDir(), devWebhookSecretName)}`
  const clickhouse = createClickHouse(config)
  const worker = await startWorker(config, logger.child({ service: 'worker' }), { clickhouse })
  // `forget` through the endpoint tells the worker the erased conversations at once (write/known-sessions.ts).
  const forgotten = (sessionIds: readonly string[]) => worker.forgotten(sessionIds)
  // Read-only sessions on the same data directory, one per query, for analysts' SQL.
  const sql: SqlEndpoint | undefined = config.CLICKHOUSE_URL
    ? undefined
    : await startSqlEndpoint(
        () => createClickHouse(config),
        config.DEV_SQL_PORT,
        await loadOrCreateLocalSecret(localStateDir(), 'sql-endpoint-token'),
        '127.0.0.1',
        config.ALERTMANAGER_URL,
        config.CLICKHOUSE_DATABASE,
        (body) => answerForget(body, () => createClickHouse(config), config, forgotten),
      )
  const assembler = await startAssembler(config, logger.child({ service: 'assembler' }))
  const ingress = await startIngress(config, logger.child({ service: 'ingress' }))
  await waitUntilReady(`${ingress.url}/readyz`, {
    onWaiting: (reason) =>
      logger.info({ readyz: reason }, 'waiting for the ingress to be ready before printing its URL'),
  })
  logger.info(
    {
      ingress: ingress.url,
      workerMetrics: worker.metricsUrl,
      assemblerMetrics: assembler.metricsUrl,
      sqlEndpoint: sql?.url,
      clickhouse: describeClickHouse(config),
    },
    'dev pipeline running',
  )
  const firstSecret = parseWebhookSecrets(config.WEBHOOK_SECRETS)[0]!
  process.stderr.write(
    renderNextSteps({
      repoDir: process.cwd(),
      ingressPort: Number(new URL(ingress.url).port),
      localWebhookToken: madeUp ? firstSecret.secret : undefined,
      webhookSource: firstSecret.source,
      workerMetricsUrl: worker.metricsUrl,
      assemblerMetricsUrl: assembler.metricsUrl,
      database: config.CLICKHOUSE_DATABASE,
      // The address it listens on: `localhost` may resolve to ::1 first, where nothing listens.
      overviewUrl: sql ? `${sql.url}/` : undefined,
      prometheusUrl: config.PROMETHEUS_URL,
      alertmanagerUrl: config.ALERTMANAGER_URL,
    }),
  )
  const started = runStartedAt(process.env, processStartedAt)
  const firstConversation = watchFirstConversation(clickhouse, config.CLICKHOUSE_DATABASE, (storedAt) =>
    process.stderr.write(renderFirstConversation(storedAt - started.at, started.since)),
  )
  return async () => {
    firstConversation.stop()
    await ingress.close()
    await assembler.stop()
    await worker.stop()
    await sql?.close()
    await clickhouse.close()
  }
}
