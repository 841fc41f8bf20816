import { describe, expect, it } from 'vitest'
import { toAvroRecord } from '../../../core/event/event-record.ts'
import { fixtureNames, loadFixture } from '../../../test/fixtures/index.ts'
import { conversationRows } from './conversation-rows.ts'
import {
  type ConversationSpan,
  conversationSpan,
  delayMetrics,
  e2eTolerance,
  type ItemMetrics,
  itemMetricFlags,
  metricFlagNames,
  metricFlags,
  spanToleranceMs,
} from './metric-quality.ts'

// Each rule of docs/metric-quality.md: the flag set on a value that breaks it, not set on the
// nearest value that does not.
const t0 = Date.parse('2026-01-01T10:00:00Z')
const span: ConversationSpan = conversationSpan(t0, t0 - 2_000, 60)

const noMetrics = {
  started_speaking_at: null,
  stopped_speaking_at: null,
  e2e_latency: null,
  llm_node_ttft: null,
  tts_node_ttfb: null,
  transcription_delay: null,
  end_of_turn_delay: null,
  on_user_turn_completed_delay: null,
}
const user = (metrics: Partial<ItemMetrics> = {}): ItemMetrics => ({
  role: 'User',
  kind: 'Message',
  ...noMetrics,
  started_speaking_at: t0 + 5_000,
  stopped_speaking_at: t0 + 7_000,
  transcription_delay: 0.1,
  end_of_turn_delay: 0.4,
  on_user_turn_completed_delay: 0.01,
  ...metrics,
})
const agent = (metrics: Partial<ItemMetrics> = {}): ItemMetrics => ({
  role: 'Assistant',
  kind: 'Message',
  ...noMetrics,
  started_speaking_at: t0 + 8_000,
  stopped_speaking_at: t0 + 12_000,
  llm_node_ttft: 0.3,
  tts_node_ttfb: 0.2,
  e2e_latency: 0.95,
  ...metrics,
})
const toolCall: ItemMetrics = { role: 'Assistant', kind: 'FunctionCall', ...noMetrics }

const flagsOf = (item: ItemMetrics, answers: ItemMetrics | null = null, within = span) =>
  itemMetricFlags(item, within, answers)

describe('metric flags', () => {
  it('leaves a sound user turn and the agent turn answering it unflagged', () => {
    expect(metricFlags([user(), agent()], span)).toEqual([[], []])
  })

  it('speaking_interval_reversed: stopped before started; not when equal', () => {
    expect(flagsOf(user({ stopped_speaking_at: t0 + 4_999 }))).toContain('speaking_interval_reversed')
    expect(flagsOf(user({ stopped_speaking_at: t0 + 5_000 }))).not.toContain('speaking_interval_reversed')
  })

  it('speaking_outside_conversation: before the earliest of start_time and created_at, or after start + duration', () => {
    const first = t0 - 2_000 - spanToleranceMs
    const last = t0 + 60_000 + spanToleranceMs
    expect(flagsOf(user({ started_speaking_at: first - 1 }))).toContain('speaking_outside_conversation')
    expect(flagsOf(user({ started_speaking_at: first }))).not.toContain('speaking_outside_conversation')
    expect(flagsOf(user({ stopped_speaking_at: last + 1 }))).toContain('speaking_outside_conversation')
    expect(flagsOf(user({ stopped_speaking_at: last }))).not.toContain('speaking_outside_conversation')
  })

  it('speaking_outside_conversation: an unknown bound is not checked', () => {
    const noEnd = conversationSpan(t0, null, null)
    expect(flagsOf(user({ stopped_speaking_at: t0 + 3_600_000 }), null, noEnd)).not.toContain(
      'speaking_outside_conversation',
    )
    expect(flagsOf(user({ started_speaking_at: t0 - spanToleranceMs - 1 }), null, noEnd)).toContain(
      'speaking_outside_conversation',
    )
    const nothing = conversationSpan(null, null, 60)
    expect(flagsOf(user({ started_speaking_at: 0 }), null, nothing)).toEqual([])
  })

  it('the conversation ends at start_time + duration, else created_at + duration', () => {
    expect(conversationSpan(t0, t0 - 2_000, 60)).toEqual({
      startMs: t0 - 2_000,
      endMs: t0 + 60_000,
      durationSeconds: 60,
    })
    expect(conversationSpan(null, t0, 60)).toEqual({ startMs: t0, endMs: t0 + 60_000, durationSeconds: 60 })
    expect(conversationSpan(t0, null, null)).toEqual({ startMs: t0, endMs: null, durationSeconds: null })
  })

  it.each(delayMetrics)('negative_delay: %s below 0; not at 0', (name) => {
    expect(flagsOf(user({ [name]: -0.001 }))).toContain('negative_delay')
    expect(flagsOf(user({ [name]: 0 }))).not.toContain('negative_delay')
  })

  it.each(delayMetrics)(
    'delay_longer_than_conversation: %s as long as the conversation; not just shorter',
    (name) => {
      expect(flagsOf(user({ [name]: 60 }))).toContain('delay_longer_than_conversation')
      expect(flagsOf(user({ [name]: 59.999 }))).not.toContain('delay_longer_than_conversation')
      const unknownLength = conversationSpan(t0, null, null)
      expect(flagsOf(user({ [name]: 600 }), null, unknownLength)).not.toContain(
        'delay_longer_than_conversation',
      )
    },
  )

  it('e2e_below_parts: e2e short of end-of-turn + TTFT + TTS TTFB by more than the tolerance', () => {
    const answered = user({ end_of_turn_delay: 0.4 })
    // parts: 0.4 + 0.3 + 0.2 = 0.9
    expect(flagsOf(agent({ e2e_latency: 0.9 - e2eTolerance - 0.001 }), answered)).toContain('e2e_below_parts')
    expect(flagsOf(agent({ e2e_latency: 0.9 - e2eTolerance + 0.001 }), answered)).not.toContain(
      'e2e_below_parts',
    )
  })

  it('e2e_below_parts: only the known parts count (a greeting has no user turn before it)', () => {
    expect(flagsOf(agent({ e2e_latency: 0.4 }), null)).toContain('e2e_below_parts')
    expect(flagsOf(agent({ e2e_latency: 0.5 }), null)).not.toContain('e2e_below_parts')
    expect(
      flagsOf(agent({ e2e_latency: 0.01, llm_node_ttft: null, tts_node_ttfb: null }), null),
    ).not.toContain('e2e_below_parts')
  })

  it('e2e_below_parts: the end-of-turn delay is that of the user turn answered, across tool calls', () => {
    const slowEnd = user({ end_of_turn_delay: 0.9 })
    expect(metricFlags([slowEnd, toolCall, agent({ e2e_latency: 1.0 })], span)[2]).toContain(
      'e2e_below_parts',
    )
    expect(metricFlags([slowEnd, toolCall, agent({ e2e_latency: 1.4 })], span)[2]).toEqual([])
  })

  it.each(['e2e_latency', 'llm_node_ttft', 'tts_node_ttfb'] as const)(
    'missing_agent_turn_metrics: an agent message answering a user turn without %s',
    (name) => {
      expect(metricFlags([user(), agent({ [name]: null })], span)[1]).toContain('missing_agent_turn_metrics')
    },
  )

  it('missing_agent_turn_metrics: not on a greeting, a second agent message, a tool call', () => {
    const greeting = agent({ e2e_latency: null })
    expect(metricFlags([greeting], span)).toEqual([[]])
    expect(metricFlags([user(), agent(), agent({ e2e_latency: null })], span)[2]).toEqual([])
    expect(metricFlags([user(), toolCall, agent()], span)[1]).toEqual([])
    expect(metricFlags([user(), toolCall, agent({ e2e_latency: null })], span)[2]).toContain(
      'missing_agent_turn_metrics',
    )
  })

  it.each(['transcription_delay', 'end_of_turn_delay'] as const)(
    'missing_user_turn_metrics: a user message without %s; not an item of another kind',
    (name) => {
      expect(flagsOf(user({ [name]: null }))).toContain('missing_user_turn_metrics')
      expect(flagsOf({ ...user({ [name]: null }), kind: 'FunctionCallOutput' })).not.toContain(
        'missing_user_turn_metrics',
      )
    },
  )

  it('lists several flags of one item in the documented order, each once', () => {
    const flags = flagsOf(
      user({
        started_speaking_at: t0 + 70_000,
        stopped_speaking_at: t0 + 65_000,
        transcription_delay: -1,
        end_of_turn_delay: -2,
        on_user_turn_completed_delay: 100,
      }),
    )
    expect(flags).toEqual([
      'speaking_interval_reversed',
      'speaking_outside_conversation',
      'negative_delay',
      'delay_longer_than_conversation',
    ])
    expect(metricFlagNames.filter((flag) => flags.includes(flag))).toEqual(flags)
  })

  it.each(fixtureNames)('the platform fixture %s has no flagged item', (name) => {
    const rows = conversationRows(toAvroRecord(loadFixture(name), { source: 'prod', receivedAt: 1 }), {
      topic: 't',
      partition: 0,
      offset: 0,
      timestampMs: 1,
    })
    expect(rows.conversation_items.filter((item) => item.metric_flags.length > 0)).toEqual([])
    expect(rows.conversations[0]!.flagged_item_count).toBe(0)
  })
})
