import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runReadOnlyQuery } from '../../core/clickhouse/clickhouse-read-only.ts'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { createLogger } from '../../core/runtime/logger.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { type RunningWorker, startWorker } from '../../services/worker/worker.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { embeddedClickHouse } from '../support/embedded-clickhouse.ts'
import { postJson, startTestIngress, type TestIngress } from '../support/ingress-test-server.ts'
import { createPrivateKafka, freePort, type PrivateKafka } from '../support/private-kafka.ts'
import { type AlertmanagerServer, startAlertmanager } from './alertmanager-server.ts'
import { writeFastRuleFiles } from './fast-rule-files.ts'
import { type NotificationReceiver, startNotificationReceiver } from './notification-receiver.ts'
import { type PrometheusServer, startPrometheus } from './prometheus-server.ts'

// Alerts that reach a person, on real servers end to end: failed-room conversations go through
// the real ingress, Kafka (the test's own, so counts are exact) and worker; a real Prometheus
// (Debian's) scrapes both with the repository's rules (every minute made 3 s: fast-rule-files.ts)
// and sends to a real Alertmanager whose config is rendered from ALERT_* as shipped (group_wait
// 1 s, group_interval 2 s here); a local HTTP server is the chat tool (Slack body) and the pager
// (webhook). A burst is one notification naming the agent and the count; it resolves; a silence
// made through the API holds the next incident back; a stopped worker pages WorkerDown while the
// failed-room alert it makes wrong is inhibited.
const billing = 'Alert Billing Agent'
const support = 'Alert Support Agent'
const workerMain = fileURLToPath(new URL('../../services/worker/main.ts', import.meta.url))
const groupInterval = 2_000
const scratch = mkdtempSync(join(tmpdir(), 'va-alert-delivery-'))

const agentIds: Record<string, string> = { [billing]: randomUUID(), [support]: randomUUID() }

let kafka: PrivateKafka
let worker: RunningWorker
let idleWorker: ChildProcess
let idleWorkerAddress: string
let ingress: TestIngress
let receiver: NotificationReceiver
let alertmanager: AlertmanagerServer
let prometheus: PrometheusServer

function conversations(agent: string, count: number, failed: boolean): ConversationCompleteEvent[] {
  return generateConversations({
    count,
    seed: Math.floor(Math.random() * 1e9),
    from: Date.now() - 60_000,
    spanHours: 0.01,
    failedRoomRate: 0,
    historyItems: 4,
  }).map((event) => {
    const data = { ...event.data, agent_id: agentIds[agent], agent_name: agent }
    if (failed) {
      data.room_metadata = {
        failed: true,
        skipCompositeEgress: false,
        error: 'sip: 480 Temporarily Unavailable',
      }
      data.status = 'Failed'
      data.error_message = 'The call could not be connected.'
    }
    return { ...event, data }
  })
}

async function post(events: ConversationCompleteEvent[]): Promise<void> {
  for (const event of events) {
    const response = await postJson(ingress.webhookUrl(), event)
    const text = await response.text()
    expect([response.status, JSON.parse(text).status], text).toEqual([202, 'accepted'])
  }
}

async function waitFor<T>(
  what: string,
  probe: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (done(value)) return value
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}\n${await diagnosis()}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}
/** What each server holds, for a failure message. */
async function diagnosis(): Promise<string> {
  const failedRooms = await prometheus.query('voice_analytics:failed_rooms:increase10m').catch(String)
  return [
    `prometheus failed rooms: ${JSON.stringify(failedRooms)}`,
    `prometheus alerts: ${JSON.stringify((await prometheus.alerts().catch(String)) as unknown)}`,
    `alertmanager alerts: ${JSON.stringify((await alertmanager.alerts().catch(String)) as unknown)}`,
    `deliveries: ${JSON.stringify(receiver.deliveries.map((d) => [d.path, d.body.status ?? receiver.slack().map((m) => m.title)]))}`,
    `alertmanager log: ${alertmanager.log().slice(-1500)}`,
  ].join('\n')
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Slack messages about one alert of one agent (the group's title names both). */
const messagesAbout = (alertname: string, agent?: string) =>
  receiver
    .slack()
    .filter((m) => m.title.includes(`] ${alertname}`) && (!agent || m.title.includes(`agent ${agent}`)))

const failedRoomsAlertOf = async (agent: string) =>
  (await alertmanager.alerts()).find(
    (alert) => alert.labels.alertname === 'VoiceAgentFailedRooms' && alert.labels.agent === agent,
  )

beforeAll(async () => {
  kafka = await createPrivateKafka()
  await kafka.start()
  const env = {
    KAFKA_BROKERS: kafka.brokers,
    SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
    METRICS_AGENT_ALLOWLIST: `${billing},${support}`,
    LOG_LEVEL: 'warn',
  }
  worker = await startWorker(
    loadConfig({
      ...env,
      CLICKHOUSE_DATA_DIR: join(scratch, 'worker'),
      WORKER_GROUP_ID: `va-alert-test-${randomUUID()}`,
      WORKER_METRICS_PORT: '0',
    }),
    createLogger('worker', process.env.TEST_LOG_LEVEL ?? 'warn'),
  )
  // A second worker, a process of its own on an idle topic: the one the test stops for WorkerDown
  // while the first keeps counting failed rooms.
  const idlePort = await freePort()
  idleWorkerAddress = `127.0.0.1:${idlePort}`
  idleWorker = spawn(process.execPath, [workerMain], {
    env: {
      ...process.env,
      ...env,
      CLICKHOUSE_DATA_DIR: join(scratch, 'idle-worker'),
      WORKER_TOPIC: `va-alert-idle-${randomUUID()}`,
      WORKER_DLQ_TOPIC: `va-alert-idle-dlq-${randomUUID()}`,
      WORKER_GROUP_ID: `va-alert-idle-${randomUUID()}`,
      WORKER_METRICS_PORT: String(idlePort),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  ingress = await startTestIngress({ KAFKA_BROKERS: kafka.brokers })
  await ingress.waitUntilReady()
  receiver = await startNotificationReceiver()
  alertmanager = await startAlertmanager({
    ALERT_SLACK_WEBHOOK_URL: `${receiver.url}/slack`,
    ALERT_WEBHOOK_URL: `${receiver.url}/webhook`,
    ALERT_OVERVIEW_URL: 'http://127.0.0.1:8124/',
    ALERT_GRAFANA_URL: 'http://grafana.test:3000',
    ALERT_GROUP_WAIT: '1s',
    ALERT_GROUP_INTERVAL: `${groupInterval / 1000}s`,
    ALERT_REPEAT_INTERVAL: '1h',
  })
  prometheus = await startPrometheus(
    [
      { job: 'ingress', address: new URL(ingress.url).host },
      { job: 'worker', address: new URL(worker.metricsUrl!).host },
      { job: 'worker', address: idleWorkerAddress },
    ],
    writeFastRuleFiles(join(scratch, 'rules'), 3),
    { alertmanagerUrl: alertmanager.url },
  )
}, 300_000)

afterAll(async () => {
  await prometheus?.stop()
  await alertmanager?.stop()
  await receiver?.close()
  await ingress?.close()
  if (idleWorker && idleWorker.exitCode === null) idleWorker.kill('SIGKILL')
  await worker?.stop()
  await kafka?.remove()
  rmSync(scratch, { recursive: true, force: true })
})

describe('alerts delivered through Alertmanager', () => {
  it('sees the ingress and both workers up, and Prometheus knows the Alertmanager', async () => {
    await waitFor(
      'three targets up',
      () => prometheus.query('up'),
      (up) => up.length === 3 && up.every((sample) => sample.value === 1),
      120_000,
    )
    const response = await fetch(`${prometheus.url}/api/v1/alertmanagers`)
    const body = (await response.json()) as { data: { activeAlertmanagers: { url: string }[] } }
    expect(body.data.activeAlertmanagers.map((am) => new URL(am.url).host)).toEqual([
      new URL(alertmanager.url).host,
    ])
  })

  it('a burst of failed rooms of one agent is one notification naming the agent and the count', async () => {
    await post(conversations(billing, 6, true))
    await post(conversations(support, 2, false))
    const [first] = await waitFor(
      'the failed-rooms notification',
      () => messagesAbout('VoiceAgentFailedRooms', billing),
      (m) => m.length > 0,
    )
    // More group intervals: no other message may arrive while this incident fires (its
    // resolution, 30 s after the last failed room here, is the next test's).
    await sleep(2 * groupInterval)
    const firing = messagesAbout('VoiceAgentFailedRooms').filter((m) => m.title.startsWith('[FIRING'))
    expect(firing.map((m) => m.title)).toEqual([`[FIRING:1] VoiceAgentFailedRooms · agent ${billing}`])
    const count = Number(/had (\d+) failed rooms in 10 minutes/.exec(first!.text)?.[1])
    // The alert fires at the threshold (3); the notification names what Prometheus counted then.
    expect(count).toBeGreaterThanOrEqual(3)
    expect(count).toBeLessThanOrEqual(6)
    expect(first!.text).toContain(`Agent ${billing} had ${count} failed rooms`)
    expect(first!.text).toContain(
      `value: ${count} failed rooms in 10 minutes · threshold: 3 failed rooms in 10 minutes`,
    )
    expect(first!.text).toMatch(/since: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/)
    expect(first!.text).toContain('overview: http://127.0.0.1:8124/')
    expect(first!.text).toMatch(
      /grafana: http:\/\/grafana\.test:3000\/d\/voice-latency\?from=\d+&to=now&var-agent=Alert\+Billing\+Agent/,
    )
    // The ./run query line lists the failed rooms with their errors: run as printed (the query
    // command's read-only check) on the worker's ClickHouse.
    const sql = /failed rooms: \.\/run query "(.+)"$/m.exec(first!.text)?.[1]
    expect(sql).toContain(`WHERE room_failed AND agent_name = '${billing}' AND received_at >= `)
    const session = embeddedClickHouse(join(scratch, 'worker'))
    const listed = JSON.parse(
      await runReadOnlyQuery(session, { sql: sql!, format: 'JSON', final: true }).finally(() =>
        session.close(),
      ),
    ) as { data: { room_error: string; error_message: string }[] }
    expect(listed.data.length).toBeGreaterThanOrEqual(count)
    for (const row of listed.data) expect(row.room_error).toBe('sip: 480 Temporarily Unavailable')
    expect(first!.text).toContain('runbook: docs/alerting.md#voiceagentfailedrooms')
    // The pager got the same single incident (critical), as JSON.
    const pages = receiver.webhooks().filter((w) => w.groupLabels.alertname === 'VoiceAgentFailedRooms')
    expect(pages.map((w) => [w.status, w.groupLabels.agent])[0]).toEqual(['firing', billing])
    expect(pages.filter((w) => w.status === 'firing')).toHaveLength(1)
  })

  it('healthy traffic afterwards: a resolved notification', async () => {
    await post(conversations(billing, 4, false))
    const resolved = await waitFor(
      'the resolved notification',
      () => messagesAbout('VoiceAgentFailedRooms', billing).filter((m) => m.title.startsWith('[RESOLVED]')),
      (m) => m.length > 0,
      90_000,
    )
    expect(resolved[0]!.text).toContain(`RESOLVED VoiceAgentFailedRooms (critical) · agent ${billing}`)
    expect(resolved[0]!.text).toMatch(/resolved: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/)
    expect(messagesAbout('VoiceAgentFailedRooms', billing)).toHaveLength(2)
  })

  it('a silence made through the API holds the next incident back while it lasts', async () => {
    const before = messagesAbout('VoiceAgentFailedRooms', billing).length
    const silence = await alertmanager.silence(
      { alertname: 'VoiceAgentFailedRooms', agent: billing },
      30,
      'planned campaign launch',
    )
    await post(conversations(billing, 4, true))
    const silenced = await waitFor(
      'the incident to reach Alertmanager, silenced',
      () => failedRoomsAlertOf(billing),
      (alert) => alert?.status.state === 'suppressed',
    )
    expect(silenced!.status.silencedBy).toEqual([silence])
    await sleep(3 * groupInterval)
    expect(messagesAbout('VoiceAgentFailedRooms', billing)).toHaveLength(before)
    // The silence is what held it: expired, the incident is delivered.
    await alertmanager.expireSilence(silence)
    await waitFor(
      'the incident delivered once the silence expired',
      () => messagesAbout('VoiceAgentFailedRooms', billing),
      (m) => m.length === before + 1,
    )
    expect(messagesAbout('VoiceAgentFailedRooms', billing).at(-1)!.title).toMatch(/^\[FIRING:1\]/)
  })

  it('a stopped worker pages WorkerDown, and the failed-room alert it makes wrong is inhibited', async () => {
    idleWorker.kill('SIGTERM')
    const down = await waitFor(
      'WorkerDown delivered',
      () => messagesAbout('WorkerDown'),
      (m) => m.length > 0,
      90_000,
    )
    expect(down[0]!.text).toContain(idleWorkerAddress)
    expect(down[0]!.text).toContain('runbook: docs/alerting.md#workerdown')
    expect(
      receiver.webhooks().some((w) => w.groupLabels.alertname === 'WorkerDown' && w.status === 'firing'),
    ).toBe(true)

    await post(conversations(support, 4, true))
    const inhibited = await waitFor(
      "Support's failed rooms reaching Alertmanager, inhibited",
      () => failedRoomsAlertOf(support),
      (alert) => alert?.status.state === 'suppressed',
    )
    expect(inhibited!.status.inhibitedBy.length).toBeGreaterThan(0)
    expect(inhibited!.status.silencedBy).toEqual([])
    await sleep(3 * groupInterval)
    expect(messagesAbout('VoiceAgentFailedRooms', support)).toEqual([])
    // Prometheus itself fires it: only the inhibition keeps it from a person.
    const firing = (await prometheus.alerts()).filter(
      (alert) => alert.labels.alertname === 'VoiceAgentFailedRooms' && alert.labels.agent === support,
    )
    expect(firing.map((alert) => alert.state)).toEqual(['firing'])
  })
})
