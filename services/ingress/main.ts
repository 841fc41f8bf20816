import { piiRedactions } from '../../core/privacy/pii/pii-settings.ts'
import { createLogger, type Logger } from '../../core/runtime/logger.ts'
import { createMetricsRegistry } from '../../core/runtime/metrics.ts'
import { runUntilSignal } from '../../core/runtime/run-until-signal.ts'
import { environmentPrefix } from '../../core/runtime/shell-environment.ts'
import { parseWebhookSecrets } from '../../core/secrets/webhook-secrets.ts'
import { type Config, loadConfig } from '../../core/settings/env.ts'
import { checkStartup } from '../../core/startup-diagnosis/startup-checks.ts'
import { buildIngressApp } from './ingress-app.ts'
import { connectIngress } from './ingress-connections.ts'
import { createIngressMetrics } from './ingress-metrics.ts'

// `npm run start:ingress`: the webhook receiver (started with ingressNodeFlags). SIGTERM/SIGINT: stop accepting, finish the
// requests in flight, flush the producer, exit 0.
/** Node flags of every ingress start. Only the command line sets them: package.json (start:ingress,
 *  dev), ./run dev and compose pass the same (ingress-node-flags test). bench/results/ingress.md:
 *  - a smaller young generation bounds the garbage that waits for a scavenge;
 *  - a 1.5 GiB old generation (default: a quarter of the machine's memory, 4 GiB here): V8 lets
 *    the old generation grow less between mark-compacts when its limit is under 2 GiB. About one
 *    22 KB Buffer per event (likely mostly the Kafka client's batch copies) lives through two
 *    scavenges and is freed only by a mark-compact: with the default, up to ~65 MB of them waited
 *    for one; with this, ~20 MB. Peak RSS under the benchmark's load −30 to −50 MB. */
export const ingressNodeFlags = ['--max-semi-space-size=8', '--max-old-space-size=1536']
/** glibc's malloc with 2 arenas instead of 8 per core: freed Buffers (request bodies, Avro messages,
 *  Kafka requests) are reused instead of kept in arenas of their own, ~45 MB less peak RSS under
 *  load at the same rate (bench/results/ingress.md). malloc reads it before any code runs, so every
 *  start path sets it in the environment, beside ingressNodeFlags (ingress-node-flags test). */
export const ingressEnvironment = { MALLOC_ARENA_MAX: '2' }
/** The same as a shell prefix, as package.json and ./run write it. */
export const ingressEnvironmentPrefix = environmentPrefix(ingressEnvironment)

export interface RunningIngress {
  url: string
  close: () => Promise<void>
}

export async function startIngress(config: Config, logger: Logger): Promise<RunningIngress> {
  const secrets = parseWebhookSecrets(config.WEBHOOK_SECRETS)
  if (secrets.length === 0)
    throw new Error(
      'WEBHOOK_SECRETS must name at least one source=secret pair (e.g. prod=<32 random characters>)',
    )
  const sources = secrets.map((secret) => secret.source)
  // Checked before any connection: a bad policy stops the start with a message naming the variable.
  const piiRedaction = piiRedactions(config, sources)
  const metricsRegistry = createMetricsRegistry('ingress')
  const connections = connectIngress(config, logger)
  const app = buildIngressApp({
    secrets,
    bodyLimitBytes: config.INGRESS_BODY_LIMIT_BYTES,
    requestTimeoutMs: config.INGRESS_REQUEST_TIMEOUT_MS,
    connectionTimeoutMs: config.INGRESS_CONNECTION_TIMEOUT_MS,
    logger,
    metrics: createIngressMetrics(metricsRegistry, connections.producer),
    metricsRegistry,
    codec: connections.codec,
    otlpCodec: connections.otlpCodec,
    publish: (topic, message) => connections.producer.send(topic, message),
    readiness: connections.readiness,
    piiRedaction,
  })
  const url = await app.listen({ host: config.INGRESS_HOST, port: config.INGRESS_PORT })
  const piiPolicies = Object.fromEntries(
    sources.map((source) => [source, piiRedaction(source)?.header ?? 'keep']),
  )
  logger.info({ url, sources, piiPolicies }, 'ingress listening')
  return {
    url,
    async close() {
      await app.close()
      await connections.close()
    },
  }
}

if (import.meta.main) {
  const logger = createLogger('ingress')
  await runUntilSignal(
    logger,
    async () => {
      const config = loadConfig()
      await checkStartup(config, { kafka: true, registry: true }, logger)
      return (await startIngress(config, logger)).close
    },
    'shutting down: finishing requests in flight, flushing Kafka',
  )
}
