import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { createLogger } from '../../core/runtime/logger.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { type RunningWorker, startWorker } from '../../services/worker/worker.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { postJson, startTestIngress, type TestIngress } from '../support/ingress-test-server.ts'
import { createPrivateKafka, type PrivateKafka } from '../support/private-kafka.ts'
import { type PrometheusServer, startPrometheus } from './prometheus-server.ts'
import { repoRoot } from './provisioned-queries.ts'

// The real thing end to end: a Prometheus from Debian's package scrapes a running ingress and
// worker (on loopback, with the repository's rule files), conversations go through the webhook
// (Kafka of the test's own, so the counts are exact), and Prometheus's HTTP API shows the
// counters and the failed-rooms alert. Conversations delivered again — at once, and after they
// were stored — are not counted again. A backfill posted beside them (a year old, every room
// failed) counts in voice_conversations_backfilled_total only, and pages nobody.
const billing = 'Prom Billing Agent'
const support = 'Prom Support Agent'

let kafka: PrivateKafka
let worker: RunningWorker
let ingress: TestIngress
let prometheus: PrometheusServer
const dataDir = mkdtempSync(join(tmpdir(), 'va-prometheus-worker-'))

/** 16 conversations of two agents; Billing has 4 failed rooms (the alert's threshold is 3), Support 1. */
function conversations(): ConversationCompleteEvent[] {
  const events = generateConversations({
    count: 16,
    seed: 42,
    from: Date.now() - 600_000,
    spanHours: 0.15,
    failedRoomRate: 0,
    historyItems: 8,
    interruptionRate: 0.4, // barge-ins for the turn-taking counters
  })
  const agents = [
    { agent_id: randomUUID(), agent_name: billing },
    { agent_id: randomUUID(), agent_name: support },
  ]
  return events.map((event, index) => {
    const data = { ...event.data, ...agents[index % 2]! }
    const failed = [0, 2, 4, 6, 1].includes(index)
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

/** 5 conversations a year old of a third agent, every room failed: over the threshold, were they now. */
function backfill(): ConversationCompleteEvent[] {
  return generateConversations({
    count: 5,
    seed: 43,
    from: Date.now() - 365 * 24 * 3600_000,
    spanHours: 0.15,
    failedRoomRate: 1,
    historyItems: 8,
  }).map((event) => ({
    ...event,
    data: { ...event.data, agent_id: randomUUID(), agent_name: 'Prom Backfill Agent' },
  }))
}

async function post(events: ConversationCompleteEvent[]): Promise<void> {
  for (const event of events) {
    const response = await postJson(ingress.webhookUrl(), event)
    expect(response.status, await response.text()).toBe(202)
  }
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (done(value)) return value
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

const scalar = async (expr: string) => (await prometheus.query(expr))[0]?.value ?? 0
const byLabel = async (expr: string, label: string) =>
  Object.fromEntries((await prometheus.query(expr)).map((sample) => [sample.labels[label], sample.value]))

beforeAll(async () => {
  kafka = await createPrivateKafka()
  await kafka.start()
  const logger = createLogger('worker', process.env.TEST_LOG_LEVEL ?? 'warn')
  worker = await startWorker(
    loadConfig({
      KAFKA_BROKERS: kafka.brokers,
      SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
      CLICKHOUSE_DATA_DIR: dataDir,
      WORKER_GROUP_ID: `va-prometheus-test-${randomUUID()}`,
      WORKER_METRICS_PORT: '0',
      METRICS_AGENT_ALLOWLIST: `${billing},${support}`,
      LOG_LEVEL: 'warn',
    }),
    logger,
  )
  ingress = await startTestIngress({ KAFKA_BROKERS: kafka.brokers })
  await ingress.waitUntilReady()
  prometheus = await startPrometheus(
    [
      { job: 'ingress', address: new URL(ingress.url).host },
      { job: 'worker', address: new URL(worker.metricsUrl!).host },
    ],
    [join(repoRoot, 'dashboards/prometheus/rules/*.yml')],
  )
})

afterAll(async () => {
  await prometheus?.stop()
  await ingress?.close()
  await worker?.stop()
  await kafka?.remove()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('Prometheus scraping the ingress and the worker', () => {
  const events = conversations()
  const old = backfill()
  const unique = events.length
  const tests = events.filter((event) => event.data.test_run_id).length
  const campaignCalls = events.filter((event) => event.data.campaign_id).length
  const e2eTurnsOf = (chosen: ConversationCompleteEvent[]) =>
    chosen
      .flatMap((event) => event.data.history ?? [])
      .filter((item) => typeof item.metrics?.e2e_latency === 'number').length
  const e2eTurns = e2eTurnsOf(events)
  const campaignTurns = e2eTurnsOf(events.filter((event) => event.data.campaign_id))
  const phoneTurns = e2eTurnsOf(events.filter((event) => event.data.telecom_provider))
  let posted = 0

  it('sees both targets up', async () => {
    const up = await waitFor(
      'both targets up',
      () => byLabel('up', 'job'),
      (jobs) => jobs.ingress === 1 && jobs.worker === 1,
    )
    expect(up).toEqual({ ingress: 1, worker: 1 })
  })

  it('counts each conversation once, though one arrived twice in a row, and the backfill apart', async () => {
    await post(old)
    await post(events)
    await post([events[3]!])
    posted = old.length + unique + 1
    await waitFor(
      'the worker consumed every delivery',
      () => scalar('sum(worker_messages_consumed_total)'),
      (n) => n === posted,
    )
    await waitFor(
      'the conversations counter',
      () => scalar('sum(voice_conversations_total)'),
      (n) => n === unique,
      15_000,
    )
    await waitFor(
      'the backfill counter',
      () => scalar('sum(voice_conversations_backfilled_total)'),
      (n) => n === old.length,
      15_000,
    )
    // The ingress is another target, scraped at its own moment: its last scrape may predate the
    // worker's, so wait for it too rather than read it once.
    await waitFor(
      'the ingress counter',
      () => scalar('sum(ingress_events_total{outcome="accepted"})'),
      (n) => n === posted,
      15_000,
    )
    expect(await scalar('sum(voice_conversations_total)')).toBe(unique)
    expect(await byLabel('sum by (agent) (voice_failed_rooms_total)', 'agent')).toEqual({
      [billing]: 4,
      [support]: 1,
    })
    expect(await scalar('sum(voice_test_results_total)')).toBe(tests)
    expect(await scalar('sum(voice_campaign_conversations_total)')).toBe(campaignCalls)
    expect(await scalar('sum(voice_e2e_latency_seconds_count)')).toBe(e2eTurns)
    expect(await scalar('sum(voice_campaign_e2e_latency_seconds_count)')).toBe(campaignTurns)
    expect(await scalar('sum(voice_telecom_e2e_latency_seconds_count)')).toBe(phoneTurns)
    expect(campaignTurns * phoneTurns, 'campaign and phone turns among the generated').toBeGreaterThan(0)
    expect(await byLabel('sum by (status) (voice_conversations_total)', 'status')).toMatchObject({
      Failed: 5,
    })
    expect(await scalar('sum(voice_conversations_backfilled_total{timing="older",room_failed="true"})')).toBe(
      old.length,
    )
    expect(tests + campaignCalls).toBeGreaterThan(0)
  })

  it('counts the turn-taking of each conversation once, as its stored row has it', async () => {
    // What the worker stores for each conversation (the default dead-air threshold, 3 s), summed.
    const rows = events.map(
      (event) =>
        conversationRows(toAvroRecord(event, { source: null, receivedAt: 1 }), {
          topic: '',
          partition: 0,
          offset: 0,
          timestampMs: 0,
        }).conversations[0]!,
    )
    const withSpeech = rows.filter((row) => row.agent_talk_ms !== null)
    const sum = (pick: (row: (typeof rows)[number]) => number | null) =>
      withSpeech.reduce((total, row) => total + (pick(row) ?? 0), 0)
    expect(withSpeech.length).toBeGreaterThan(0)
    expect(await scalar('sum(voice_conversations_with_speech_total)')).toBe(withSpeech.length)
    expect(await scalar('sum(voice_dead_air_conversations_total)')).toBe(
      withSpeech.filter((row) => (row.dead_air_count ?? 0) > 0).length,
    )
    expect(await scalar('sum(voice_speech_agent_turns_total)')).toBe(sum((row) => row.agent_turn_count))
    expect(await scalar('sum(voice_caller_barge_ins_total)')).toBe(sum((row) => row.caller_barge_ins))
    expect(await scalar('sum(voice_caller_barge_ins_total{yielded="true"})')).toBe(
      sum((row) => row.barge_ins_yielded),
    )
    expect(await scalar('sum(voice_agent_cut_ins_total)')).toBe(sum((row) => row.agent_cut_ins))
    expect(await scalar('sum(voice_talk_seconds_total{side="agent"})')).toBeCloseTo(
      sum((row) => row.agent_talk_ms) / 1000,
      6,
    )
    expect(await scalar('sum(voice_longest_silence_seconds_count)')).toBe(withSpeech.length)
    expect(
      sum((row) => row.caller_barge_ins),
      'barge-ins among the generated',
    ).toBeGreaterThan(0)
  })

  it('fires the failed-rooms alert for the agent over the threshold only', async () => {
    // Rules are evaluated every second on what was scraped: wait for an evaluation that saw every
    // failed room, then check what it decided.
    const expected = { [billing]: 4, [support]: 1 }
    const failedRoomAlerts = async () =>
      (await prometheus.alerts()).filter((alert) => alert.labels.alertname === 'VoiceAgentFailedRooms')
    await waitFor(
      'the failed-rooms rule to see every failed room',
      () => byLabel('voice_analytics:failed_rooms:increase10m', 'agent'),
      (perAgent) =>
        Object.keys(perAgent).length === 2 &&
        perAgent[billing] === expected[billing] &&
        perAgent[support] === expected[support],
      30_000,
    )
    const alerts = await waitFor(
      'VoiceAgentFailedRooms to fire for 4 failed rooms',
      failedRoomAlerts,
      (found) =>
        found.some((alert) => alert.state === 'firing' && alert.annotations.summary?.includes('had 4')),
      30_000,
    )
    expect(alerts.map((alert) => [alert.labels.agent, alert.state])).toEqual([[billing, 'firing']])
    expect(alerts[0]!.annotations.summary).toContain(`Agent ${billing} had 4 failed rooms in 10 minutes`)
  })

  it('does not count conversations delivered again after they were stored', async () => {
    const again = [events[0]!, events[1]!, events[5]!]
    await post(again)
    posted += again.length
    await waitFor(
      'the worker consumed the repeated deliveries',
      () => scalar('sum(worker_messages_consumed_total)'),
      (n) => n === posted,
    )
    // One more scrape after the worker's commit: what it counted is visible now.
    const scraped = await scalar('max(timestamp(up{job="worker"}))')
    await waitFor(
      'a later scrape',
      () => scalar('max(timestamp(up{job="worker"}))'),
      (t) => t > scraped + 1,
    )
    // The ingress is another target, scraped at its own moment: its last scrape may predate the
    // worker's, so wait for it too rather than read it once.
    await waitFor(
      'the ingress counter',
      () => scalar('sum(ingress_events_total{outcome="accepted"})'),
      (n) => n === posted,
      15_000,
    )
    expect(await scalar('sum(voice_conversations_total)')).toBe(unique)
    expect(await byLabel('sum by (agent) (voice_failed_rooms_total)', 'agent')).toEqual({
      [billing]: 4,
      [support]: 1,
    })
    expect(await scalar('sum(voice_e2e_latency_seconds_count)')).toBe(e2eTurns)
    expect(await scalar('sum(voice_campaign_e2e_latency_seconds_count)')).toBe(campaignTurns)
    expect(await scalar('sum(voice_telecom_e2e_latency_seconds_count)')).toBe(phoneTurns)
    expect(campaignTurns * phoneTurns, 'campaign and phone turns among the generated').toBeGreaterThan(0)
  })
})
