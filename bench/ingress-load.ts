import autocannon from 'autocannon'
import { generateConversations } from '../generator/conversation-generator.ts'
import { ingressEnvironment } from '../services/ingress/main.ts'
import { kafkaBrokers, schemaRegistryUrl } from '../test/stack/servers.ts'

// The ingress benchmarks' one load (bench/ingress-bench.ts, ab/ingress-ab.ts, experiments/ingress-profile.ts at 1cd1657971):
// 500 distinct ~40-item conversations (~22 KB JSON) posted by 32 connections, and the ingress's
// environment against the shared stack.
export const benchSecret = 'bench-secret-0123456789abcdef'
export const benchConnections = Number(process.env.BENCH_CONNECTIONS ?? 32)
/** BENCH_RATE: a fixed offered load (requests/s) instead of as fast as the ingress answers, so an
 *  A/B on a busy machine compares CPU per event at the same rate and batch sizes. */
const benchRate = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined
export const benchBodies = generateConversations({ count: 500, seed: 99, historyItems: 40 }).map((event) =>
  JSON.stringify(event),
)

export function ingressEnv(port: number): Record<string, string> {
  return {
    ...ingressEnvironment, // as every start path sets it
    KAFKA_BROKERS: kafkaBrokers(),
    SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
    WEBHOOK_SECRETS: `bench=${benchSecret}`,
    INGRESS_HOST: '127.0.0.1',
    INGRESS_PORT: String(port),
    LOG_LEVEL: 'warn',
  }
}

/** `env` changed by a setting like 'NAME=value -OTHER' (set NAME, drop OTHER), for A/B runs of
 *  the process's environment (bench/ab/ingress-ab.ts, experiments/ingress-memory.ts at 1cd1657971). */
export function withEnvChanges(env: Record<string, string>, changes = ''): Record<string, string> {
  const changed = { ...env }
  for (const change of changes.split(/\s+/).filter(Boolean))
    if (change.startsWith('-')) delete changed[change.slice(1)]
    else changed[change.slice(0, change.indexOf('='))] = change.slice(change.indexOf('=') + 1)
  return changed
}

/** Posts the bodies to the webhook route at `port` for `seconds`. */
export function postConversations(port: number, seconds: number) {
  return autocannon({
    url: `http://127.0.0.1:${port}/webhooks/conversation-complete?token=${benchSecret}`,
    connections: benchConnections,
    duration: seconds,
    // With a rate, autocannon 9 "corrects" for coordinated omission with an expected interval of
    // ceil(1 / per-connection rate) = 1 ms (seconds taken for milliseconds): each response of L ms
    // is recorded L times (L, L-1, … 1), so a few slow ones make the p99 (1.4–2.8 s seen at
    // 700/s). Its rate limit sends each connection's share of a second as one burst anyway, so
    // there is no steady schedule to correct against: latencies are recorded as measured.
    ...(benchRate ? { overallRate: benchRate, ignoreCoordinatedOmission: true } : {}),
    requests: benchBodies.map((body) => ({
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    })),
  })
}
