import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import type { ConversationCompleteEvent } from '../../../core/event/conversation-complete.types.ts'
import { toAvroRecord } from '../../../core/event/event-record.ts'
import { withImpossibleMetrics } from '../../../test/fixtures/impossible-metrics.ts'
import { loadFixture } from '../../../test/fixtures/index.ts'
import { conversationRows } from '../transform/conversation-rows.ts'
import { metricFlagNames } from '../transform/metric-quality.ts'
import type { TableRows } from '../transform/table-rows.ts'
import { mergeRows } from '../write/batch-rows.ts'
import {
  conversationKey,
  createDomainMetrics,
  type DomainMetrics,
  newConversations,
  recordConversations,
} from './domain-metrics.ts'

// One delivery of an event -> its rows, as the worker builds them; `receivedAt` is the version.
function delivered(event: ConversationCompleteEvent, receivedAt: number, source = 'prod'): TableRows {
  return conversationRows(toAvroRecord(event, { source, receivedAt }), {
    topic: 't',
    partition: 0,
    offset: receivedAt,
    timestampMs: receivedAt,
  })
}

const failedRoom = loadFixture('failed-room')
const testRun = loadFixture('test-run')
const campaignCall = loadFixture('campaign-call')
const webCall = loadFixture('web-call')

// The fixtures are dated 3-9 June 2025: these tests record them as of that week (`fixtureNow`, a
// window of 7 days), so that they are live; what is not live has tests of its own below.
const fixtureNow = Date.parse('2025-06-06T12:00:00Z')
const week = 7 * 24 * 3600_000

function withMetrics(settings: Partial<Parameters<typeof createDomainMetrics>[1]> = {}) {
  const registry = new Registry()
  const metrics = createDomainMetrics(registry, {
    agentAllowlist: [],
    agentLimit: 50,
    valueLimit: 20,
    liveWindowMs: week,
    ...settings,
  })
  return { registry, metrics }
}

async function values(registry: Registry, name: string) {
  const metric = registry.getSingleMetric(name)
  if (!metric) throw new Error(`no metric ${name}`)
  return (await metric.get()).values
}

async function total(
  registry: Registry,
  name: string,
  labels: Record<string, string | number> = {},
): Promise<number> {
  return (await values(registry, name))
    .filter((value) => Object.entries(labels).every(([key, expected]) => value.labels[key] === expected))
    .reduce((sum, value) => sum + value.value, 0)
}

function record(
  metrics: DomainMetrics,
  rows: TableRows,
  stored: ReadonlySet<string> = new Set(),
  nowMs = fixtureNow,
) {
  const fresh = newConversations(rows, stored)
  recordConversations(metrics, fresh.conversations, fresh.items, nowMs)
  return fresh
}

describe('newConversations', () => {
  it('leaves out conversations ClickHouse already holds', () => {
    const rows = mergeRows([{ rows: delivered(failedRoom, 1) }, { rows: delivered(testRun, 1) }])
    const stored = new Set([conversationKey(rows.conversations[0]!)])
    const fresh = newConversations(rows, stored)
    expect(fresh.conversations.map((row) => row.session_id)).toEqual([testRun.data.session_id])
    expect(fresh.items.length).toBe(testRun.data.history!.length)
    expect(new Set(fresh.items.map((item) => item.session_id))).toEqual(new Set([testRun.data.session_id]))
  })

  it('takes a conversation delivered twice in one write once, with one set of its items', () => {
    const rows = mergeRows([{ rows: delivered(campaignCall, 1) }, { rows: delivered(campaignCall, 2) }])
    expect(rows.conversations.length).toBe(2)
    const fresh = newConversations(rows, new Set())
    expect(fresh.conversations.length).toBe(1)
    expect(fresh.items.length).toBe(campaignCall.data.history!.length)
    expect(new Set(fresh.items.map((item) => item.item_index)).size).toBe(fresh.items.length)
  })

  it('is empty for a write of conversations all stored before', () => {
    const rows = delivered(webCall, 5)
    const fresh = newConversations(rows, new Set(rows.conversations.map(conversationKey)))
    expect(fresh).toEqual({ conversations: [], items: [] })
  })
})

describe('recordConversations', () => {
  it('counts conversations by source, status and telecom provider', async () => {
    const { registry, metrics } = withMetrics()
    record(
      metrics,
      mergeRows([{ rows: delivered(campaignCall, 1) }, { rows: delivered(webCall, 1, 'staging') }]),
    )
    const counted = await values(registry, 'voice_conversations_total')
    expect(counted.map((value) => ({ ...value.labels, n: value.value }))).toEqual(
      expect.arrayContaining([
        {
          source: 'prod',
          status: campaignCall.data.status ?? 'unknown',
          telecom_provider: campaignCall.data.telecom_provider ?? 'unknown',
          n: 1,
        },
        {
          source: 'staging',
          status: webCall.data.status ?? 'unknown',
          telecom_provider: webCall.data.telecom_provider ?? 'unknown',
          n: 1,
        },
      ]),
    )
    expect(await total(registry, 'voice_conversations_total')).toBe(2)
  })

  it('counts a failed room for its agent, and none for rooms that did not fail', async () => {
    const { registry, metrics } = withMetrics()
    expect(failedRoom.data.room_metadata?.failed).toBe(true)
    record(metrics, mergeRows([{ rows: delivered(failedRoom, 1) }, { rows: delivered(campaignCall, 1) }]))
    expect(await values(registry, 'voice_failed_rooms_total')).toEqual([
      expect.objectContaining({ value: 1, labels: { source: 'prod', agent: failedRoom.data.agent_name } }),
    ])
  })

  it('counts test results by status, success and completion reason, and campaign calls by status', async () => {
    const { registry, metrics } = withMetrics()
    record(metrics, mergeRows([{ rows: delivered(testRun, 1) }, { rows: delivered(campaignCall, 1) }]))
    const result = testRun.data.test_eval_result!
    expect(await values(registry, 'voice_test_results_total')).toEqual([
      expect.objectContaining({
        value: 1,
        labels: {
          source: 'prod',
          test_status: testRun.data.test_status,
          success: String(result.success),
          completion_reason: result.completion_reason,
        },
      }),
    ])
    expect(await values(registry, 'voice_campaign_conversations_total')).toEqual([
      expect.objectContaining({
        value: 1,
        labels: { source: 'prod', status: campaignCall.data.status ?? 'unknown', room_failed: 'false' },
      }),
    ])
  })

  it('observes every turn latency in seconds per agent, once per conversation', async () => {
    const { registry, metrics } = withMetrics()
    const rows = mergeRows([{ rows: delivered(campaignCall, 1) }, { rows: delivered(campaignCall, 2) }])
    record(metrics, rows)
    const latencies = (campaignCall.data.history ?? []).flatMap((item) =>
      typeof item.metrics?.e2e_latency === 'number' ? [Math.fround(item.metrics.e2e_latency)] : [],
    )
    expect(latencies.length).toBeGreaterThan(0)
    const agent = campaignCall.data.agent_name!
    expect(await total(registry, 'voice_e2e_latency_seconds', { agent, le: '+Inf' })).toBe(latencies.length)
    const sum = (await values(registry, 'voice_e2e_latency_seconds')).find(
      (value) => (value as { metricName?: string }).metricName === 'voice_e2e_latency_seconds_sum',
    )
    expect(sum?.value).toBeCloseTo(
      latencies.reduce((a, b) => a + b, 0),
      9,
    )
    const ttft = (campaignCall.data.history ?? []).filter(
      (item) => typeof item.metrics?.llm_node_ttft === 'number',
    )
    expect(await total(registry, 'voice_llm_node_ttft_seconds', { agent, le: '+Inf' })).toBe(ttft.length)
  })

  it('observes e2e_latency by campaign and by telecom provider, only for campaign and phone calls', async () => {
    const { registry, metrics } = withMetrics()
    record(
      metrics,
      mergeRows([
        { rows: delivered(campaignCall, 1) },
        { rows: delivered(campaignCall, 2) },
        { rows: delivered(webCall, 1) },
        { rows: delivered(failedRoom, 1) },
        { rows: delivered(testRun, 1) },
      ]),
    )
    const turns = (event: ConversationCompleteEvent) =>
      (event.data.history ?? []).filter((item) => typeof item.metrics?.e2e_latency === 'number').length
    expect(turns(campaignCall)).toBeGreaterThan(0)
    expect(turns(webCall) + turns(testRun)).toBeGreaterThan(0) // turns that must stay out
    const counts = async (name: string) =>
      (await values(registry, name))
        .filter((value) => value.labels.le === '+Inf')
        .map((value) => ({ ...value.labels, n: value.value }))
    expect(await counts('voice_campaign_e2e_latency_seconds')).toEqual([
      { le: '+Inf', campaign: campaignCall.data.campaign_name, n: turns(campaignCall) },
    ])
    expect(await counts('voice_telecom_e2e_latency_seconds')).toEqual(
      expect.arrayContaining([
        { le: '+Inf', telecom_provider: campaignCall.data.telecom_provider, n: turns(campaignCall) },
        { le: '+Inf', telecom_provider: failedRoom.data.telecom_provider, n: turns(failedRoom) },
      ]),
    )
    expect(await total(registry, 'voice_telecom_e2e_latency_seconds', { le: '+Inf' })).toBe(
      turns(campaignCall) + turns(failedRoom),
    )
  })

  it('bounds the campaign label like the other open values', async () => {
    const overflowed: string[] = []
    const { registry, metrics } = withMetrics({
      valueLimit: 1,
      onOverflow: (label, value) => overflowed.push(`${label}=${value}`),
    })
    const other = structuredClone(campaignCall)
    other.data.campaign_name = 'Another campaign'
    other.data.session_id = `${campaignCall.data.session_id}-2`
    record(metrics, mergeRows([{ rows: delivered(campaignCall, 1) }, { rows: delivered(other, 1) }]))
    const labels = (await values(registry, 'voice_campaign_e2e_latency_seconds'))
      .filter((value) => value.labels.le === '+Inf')
      .map((value) => value.labels.campaign)
    expect(labels.sort()).toEqual([campaignCall.data.campaign_name, 'other'].sort())
    expect(overflowed).toEqual(['campaign=Another campaign'])
  })

  it('counts nothing the second time the same conversation arrives in a later write', async () => {
    const { registry, metrics } = withMetrics()
    const first = delivered(failedRoom, 1)
    record(metrics, first)
    const stored = new Set(first.conversations.map(conversationKey))
    record(metrics, delivered(failedRoom, 2), stored)
    expect(await total(registry, 'voice_conversations_total')).toBe(1)
    expect(await total(registry, 'voice_failed_rooms_total')).toBe(1)
  })

  it('counts each metric flag of a new conversation once, however often it is delivered', async () => {
    const { registry, metrics } = withMetrics()
    const { event, flags } = withImpossibleMetrics(campaignCall, 'flags')
    const expected = new Map<string, number>()
    for (const itemFlags of flags.values())
      for (const flag of itemFlags) expected.set(flag, (expected.get(flag) ?? 0) + 1)
    expect(expected.size).toBeGreaterThan(1)
    const first = mergeRows([{ rows: delivered(event, 1) }, { rows: delivered(event, 2) }])
    record(metrics, first)
    record(metrics, delivered(event, 3), new Set(first.conversations.map(conversationKey)))
    for (const flag of metricFlagNames)
      expect(await total(registry, 'voice_metric_flags_total', { flag }), flag).toBe(expected.get(flag) ?? 0)
  })

  it('leaves flagged items out of every latency histogram, and observes the unflagged ones', async () => {
    const { registry, metrics } = withMetrics()
    const { event, flags } = withImpossibleMetrics(campaignCall, 'histograms')
    record(metrics, delivered(event, 1))
    const history = event.data.history ?? []
    const observed = (metric: 'e2e_latency' | 'llm_node_ttft' | 'tts_node_ttfb', flagged: boolean) =>
      history.filter(
        (item, index) => typeof item.metrics?.[metric] === 'number' && flags.has(index) === flagged,
      ).length
    // The fixture must hold both kinds, or this test could not fail.
    for (const metric of ['e2e_latency', 'llm_node_ttft', 'tts_node_ttfb'] as const) {
      expect(observed(metric, true), metric).toBeGreaterThan(0)
      expect(observed(metric, false), metric).toBeGreaterThan(0)
    }
    const agent = event.data.agent_name!
    const count = (name: string, labels: Record<string, string> = {}) =>
      total(registry, name, { ...labels, le: '+Inf' })
    expect(await count('voice_e2e_latency_seconds', { agent })).toBe(observed('e2e_latency', false))
    expect(await count('voice_llm_node_ttft_seconds', { agent })).toBe(observed('llm_node_ttft', false))
    expect(await count('voice_tts_node_ttfb_seconds', { agent })).toBe(observed('tts_node_ttfb', false))
    expect(await count('voice_campaign_e2e_latency_seconds')).toBe(observed('e2e_latency', false))
    expect(await count('voice_telecom_e2e_latency_seconds')).toBe(observed('e2e_latency', false))
    // The flagged ones are counted by their flags instead.
    expect(await total(registry, 'voice_metric_flags_total', { flag: 'e2e_below_parts' })).toBe(1)
  })

  it('has a series at 0 for every flag before any conversation, and counts none for clean ones', async () => {
    const { registry, metrics } = withMetrics()
    expect((await values(registry, 'voice_metric_flags_total')).map((value) => value.labels.flag)).toEqual([
      ...metricFlagNames,
    ])
    record(metrics, delivered(campaignCall, 1))
    expect(await total(registry, 'voice_metric_flags_total')).toBe(0)
  })

  it('bounds the agent label: outside the allowlist an agent counts as other', async () => {
    const overflowed: string[] = []
    const { registry, metrics } = withMetrics({
      agentAllowlist: ['Somebody Else'],
      onOverflow: (label, value) => overflowed.push(`${label}=${value}`),
    })
    record(metrics, delivered(failedRoom, 1))
    expect(await values(registry, 'voice_failed_rooms_total')).toEqual([
      expect.objectContaining({ labels: { source: 'prod', agent: 'other' } }),
    ])
    expect(overflowed).toEqual([`agent=${failedRoom.data.agent_name}`])
  })
})

describe('recordConversations of conversations that are not live', () => {
  const year = 365 * 24 * 3600_000
  const domainNames = [
    'voice_conversations_total',
    'voice_failed_rooms_total',
    'voice_test_results_total',
    'voice_campaign_conversations_total',
    'voice_metric_flags_total',
    'voice_e2e_latency_seconds',
    'voice_llm_node_ttft_seconds',
    'voice_tts_node_ttfb_seconds',
    'voice_campaign_e2e_latency_seconds',
    'voice_telecom_e2e_latency_seconds',
  ]

  it('counts a backfill a year old only in voice_conversations_backfilled_total, by timing and failed room', async () => {
    const { registry, metrics } = withMetrics({ liveWindowMs: 3600_000 })
    const { event } = withImpossibleMetrics(campaignCall, 'flags') // flags, latencies, a campaign, a provider
    record(
      metrics,
      mergeRows([
        { rows: delivered(failedRoom, 1) },
        { rows: delivered(event, 1) },
        { rows: delivered(testRun, 1) },
      ]),
      new Set(),
      fixtureNow + year,
    )
    for (const name of domainNames) expect(await total(registry, name), name).toBe(0)
    expect(
      (await values(registry, 'voice_conversations_backfilled_total')).map((value) => ({
        ...value.labels,
        n: value.value,
      })),
    ).toEqual(
      expect.arrayContaining([
        { source: 'prod', timing: 'older', room_failed: 'true', n: 1 },
        { source: 'prod', timing: 'older', room_failed: 'false', n: 2 },
      ]),
    )
  })

  it('counts the live conversation of a write in full and the old one beside it in the backfill only', async () => {
    const { registry, metrics } = withMetrics({ liveWindowMs: 3600_000 })
    const live = structuredClone(failedRoom)
    live.data.session_id = `${failedRoom.data.session_id}-live`
    const now = Date.parse(live.data.start_time!) + 10 * 60_000
    record(
      metrics,
      mergeRows([{ rows: delivered(live, 1) }, { rows: delivered(campaignCall, 1) }]),
      new Set(),
      now,
    )
    expect(await total(registry, 'voice_conversations_total')).toBe(1)
    expect(await total(registry, 'voice_failed_rooms_total')).toBe(1)
    expect(await total(registry, 'voice_campaign_conversations_total')).toBe(0) // the campaign call is days old
    expect(await total(registry, 'voice_campaign_e2e_latency_seconds', { le: '+Inf' })).toBe(0)
    expect(await total(registry, 'voice_conversations_backfilled_total')).toBe(1)
  })

  it('counts a conversation without any time as no_time, not as now', async () => {
    const { registry, metrics } = withMetrics()
    const [row] = delivered(failedRoom, 1).conversations
    recordConversations(metrics, [{ ...row!, event_time: 0, event_time_source: 'none' }], [], fixtureNow)
    expect(await total(registry, 'voice_failed_rooms_total')).toBe(0)
    expect(await values(registry, 'voice_conversations_backfilled_total')).toEqual([
      expect.objectContaining({
        value: 1,
        labels: { source: 'prod', timing: 'no_time', room_failed: 'true' },
      }),
    ])
  })
})

describe('recordConversations: turn-taking', () => {
  const interruptions = loadFixture('interruptions')
  const agent = interruptions.data.agent_name!
  // With a dead-air threshold of 1 s, the interruptions fixture has 6 silences over it (worked out by
  // hand in conversation-speech.unit.test.ts, with the other figures below).
  const withDeadAir = (receivedAt: number) =>
    conversationRows(
      toAvroRecord(interruptions, { source: 'prod', receivedAt }),
      { topic: 't', partition: 0, offset: receivedAt, timestampMs: receivedAt },
      { deadAirMs: 1_000 },
    )

  it('counts the figures of a live conversation once per agent, however often it is delivered', async () => {
    const { registry, metrics } = withMetrics()
    const stored = record(metrics, mergeRows([{ rows: withDeadAir(1) }, { rows: withDeadAir(2) }]))
    record(metrics, withDeadAir(3), new Set(stored.conversations.map(conversationKey)))
    expect(await total(registry, 'voice_conversations_with_speech_total', { agent })).toBe(1)
    expect(await total(registry, 'voice_dead_air_conversations_total', { agent })).toBe(1)
    expect(await total(registry, 'voice_dead_air_silences_total', { agent })).toBe(6)
    expect(await total(registry, 'voice_speech_agent_turns_total', { agent })).toBe(
      withDeadAir(1).conversations[0]!.agent_turn_count,
    )
    expect(await total(registry, 'voice_caller_barge_ins_total', { agent, yielded: 'true' })).toBe(3)
    expect(await total(registry, 'voice_caller_barge_ins_total', { agent, yielded: 'false' })).toBe(0)
    expect(await total(registry, 'voice_agent_cut_ins_total', { agent })).toBe(0)
    expect(await total(registry, 'voice_gap_e2e_disagreements_total', { agent })).toBe(0)
    expect(await total(registry, 'voice_talk_seconds_total', { agent, side: 'agent' })).toBeCloseTo(64.528, 9)
    expect(await total(registry, 'voice_talk_seconds_total', { agent, side: 'caller' })).toBeCloseTo(
      23.289,
      9,
    )
    // its longest silence, 2.343 s, falls in the 3 s bucket and not in the 2 s one
    expect(await total(registry, 'voice_longest_silence_seconds', { agent, le: 2 })).toBe(0)
    expect(await total(registry, 'voice_longest_silence_seconds', { agent, le: 3 })).toBe(1)
  })

  it('counts a conversation without speaking times in none of them', async () => {
    const { registry, metrics } = withMetrics()
    const silent = structuredClone(interruptions)
    for (const item of silent.data.history ?? []) delete item.metrics
    record(metrics, delivered(silent, 1))
    expect(await total(registry, 'voice_conversations_total')).toBe(1)
    expect(await total(registry, 'voice_conversations_with_speech_total')).toBe(0)
    expect(await total(registry, 'voice_talk_seconds_total')).toBe(0)
    expect(await total(registry, 'voice_longest_silence_seconds', { le: '+Inf' })).toBe(0)
  })

  it('counts a conversation that is not live in none of them', async () => {
    const { registry, metrics } = withMetrics()
    record(metrics, withDeadAir(1), new Set(), fixtureNow + 30 * 24 * 3600_000)
    expect(await total(registry, 'voice_conversations_backfilled_total')).toBe(1)
    expect(await total(registry, 'voice_conversations_with_speech_total')).toBe(0)
    expect(await total(registry, 'voice_caller_barge_ins_total')).toBe(0)
  })
})
