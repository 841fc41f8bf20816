import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import type { ConversationCompleteEvent } from '../core/event/conversation-complete.types.ts'
import { createLogger } from '../core/runtime/logger.ts'
import { loadConfig } from '../core/settings/env.ts'
import { shippedTiming } from '../dashboards/src/alerting/alertmanager-config.ts'
import { generateConversations } from '../generator/conversation-generator.ts'
import { startWorker } from '../services/worker/worker.ts'
import { startAlertmanager } from '../test/observability/alertmanager-server.ts'
import { startNotificationReceiver } from '../test/observability/notification-receiver.ts'
import { startPrometheus } from '../test/observability/prometheus-server.ts'
import { repoRoot } from '../test/observability/provisioned-queries.ts'
import { schemaRegistryUrl } from '../test/stack/servers.ts'
import { postJson, startTestIngress } from '../test/support/ingress-test-server.ts'
import { createPrivateKafka } from '../test/support/private-kafka.ts'

// `npm run bench:alerting`: time to alert with the SHIPPED defaults — from the 202 of an
// incident's first failed room to its notification at the receiver (a local HTTP server as the
// chat tool), through the real ingress, Kafka (a private broker), worker, Prometheus (Debian's,
// scrape and evaluation every 15 s as dashboards/prometheus/prometheus.yml, the repository's
// rules) and Alertmanager (config rendered as shipped: group_wait 20 s). Each incident is a
// burst of failed rooms of a new agent, started at a random moment of the scrape cycle; it also
// counts the notifications each incident gave (target: one). Prints the figures beside their
// parts and the 60 s target; results are kept in bench/results/alerting.md.
const incidents = Number(process.env.BENCH_INCIDENTS ?? 5)
const burst = Number(process.env.BENCH_BURST ?? 5)
const targetSeconds = 60
const prometheusConfig = parse(
  readFileSync(join(repoRoot, 'dashboards/prometheus/prometheus.yml'), 'utf8'),
) as {
  global: { scrape_interval: string; evaluation_interval: string }
}
const failedRoomsRule = (
  parse(readFileSync(join(repoRoot, 'dashboards/prometheus/rules/voice-analytics.yml'), 'utf8')) as {
    groups: { rules: { alert?: string; for?: string }[] }[]
  }
).groups
  .flatMap((group) => group.rules)
  .find((rule) => rule.alert === 'VoiceAgentFailedRooms')!
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim()
const seconds = (duration: string) => Number(duration.replace(/s$/, '')) * (duration.endsWith('m') ? 60 : 1)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const agents = Array.from({ length: incidents }, (_, index) => `Bench Alert Agent ${index + 1}`)

function failedRooms(agent: string): ConversationCompleteEvent[] {
  const agentId = randomUUID()
  return generateConversations({
    count: burst,
    seed: Date.now() % 1e9,
    from: Date.now() - 60_000,
    spanHours: 0.01,
    historyItems: 4,
  }).map((event) => ({
    ...event,
    data: {
      ...event.data,
      agent_id: agentId,
      agent_name: agent,
      status: 'Failed',
      error_message: 'The call could not be connected.',
      room_metadata: { failed: true, skipCompositeEgress: false, error: 'sip: 480 Temporarily Unavailable' },
    },
  }))
}

const scratch = mkdtempSync(join(tmpdir(), 'va-alerting-bench-'))
const kafka = await createPrivateKafka()
await kafka.start()
const worker = await startWorker(
  loadConfig({
    KAFKA_BROKERS: kafka.brokers,
    SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
    CLICKHOUSE_DATA_DIR: join(scratch, 'worker'),
    WORKER_GROUP_ID: `va-alerting-bench-${randomUUID()}`,
    WORKER_METRICS_PORT: '0',
    METRICS_AGENT_ALLOWLIST: agents.join(','),
    LOG_LEVEL: 'warn',
  }),
  createLogger('worker', 'warn'),
)
const ingress = await startTestIngress({ KAFKA_BROKERS: kafka.brokers })
await ingress.waitUntilReady()
const receiver = await startNotificationReceiver()
const alertmanager = await startAlertmanager({ ALERT_SLACK_WEBHOOK_URL: `${receiver.url}/slack` })
const prometheus = await startPrometheus(
  [
    { job: 'ingress', address: new URL(ingress.url).host },
    { job: 'worker', address: new URL(worker.metricsUrl!).host },
  ],
  [join(repoRoot, 'dashboards/prometheus/rules/*.yml')],
  { interval: prometheusConfig.global.scrape_interval, alertmanagerUrl: alertmanager.url },
)

const results: { agent: string; seconds: number; notifications: number }[] = []
try {
  for (;;) {
    const up = await prometheus.query('up')
    if (up.length === 2 && up.every((sample) => sample.value === 1)) break
    await sleep(1_000)
  }
  for (const agent of agents) {
    // A random moment of the 15 s cycles, so the figures spread over what a user meets.
    await sleep(Math.random() * seconds(prometheusConfig.global.scrape_interval) * 1000)
    const events = failedRooms(agent)
    let firstAccepted = 0
    for (const event of events) {
      const response = await postJson(ingress.webhookUrl(), event)
      if (response.status !== 202)
        throw new Error(`webhook answered ${response.status}: ${await response.text()}`)
      firstAccepted ||= Date.now()
    }
    const about = () =>
      receiver.slack().filter((m) => m.title.startsWith('[FIRING') && m.title.includes(`agent ${agent}`))
    const deadline = Date.now() + 180_000
    while (about().length === 0) {
      if (Date.now() > deadline) throw new Error(`no notification for ${agent} within 180 s`)
      await sleep(100)
    }
    const elapsed = (about()[0]!.at - firstAccepted) / 1000
    // A group_wait more, then counted: what else this incident sent while firing.
    await sleep(seconds(shippedTiming.groupWait) * 1000 + 5_000)
    results.push({ agent, seconds: elapsed, notifications: about().length })
    console.log(`${agent}: ${elapsed.toFixed(1)} s, ${about().length} notification(s)   load: ${uptime()}`)
  }
} finally {
  await prometheus.stop()
  await alertmanager.stop()
  await receiver.close()
  await ingress.close()
  await worker.stop()
  await kafka.remove()
  rmSync(scratch, { recursive: true, force: true })
}

const sorted = results.map((r) => r.seconds).sort((a, b) => a - b)
const parts = [
  `scrape interval ${prometheusConfig.global.scrape_interval}`,
  `rule for: ${failedRoomsRule.for ?? 'none (fires at the threshold)'}`,
  `evaluation interval ${prometheusConfig.global.evaluation_interval}`,
  `group_wait ${shippedTiming.groupWait}`,
]
const worst =
  seconds(prometheusConfig.global.scrape_interval) +
  seconds(prometheusConfig.global.evaluation_interval) +
  (failedRoomsRule.for ? seconds(failedRoomsRule.for) : 0) +
  seconds(shippedTiming.groupWait)
console.log(
  [
    '',
    `time to alert (first failed room's 202 -> notification at the receiver), ${results.length} incidents of ${burst} failed rooms:`,
    `  min ${sorted[0]!.toFixed(1)} s, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} s, max ${sorted.at(-1)!.toFixed(1)} s   (target <= ${targetSeconds} s)`,
    `  parts: ${parts.join(' + ')} = at most ${worst} s of waiting, plus the pipeline's own freshness`,
    `  notifications per incident: ${results.map((r) => r.notifications).join(', ')}   (target: 1 each)`,
    `  load: ${uptime()}`,
  ].join('\n'),
)
