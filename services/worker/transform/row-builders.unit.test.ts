import { describe, expect, it } from 'vitest'
import type { ConversationData, HistoryItem } from '../../../core/event/conversation-complete.types.ts'
import { toAvroRecord } from '../../../core/event/event-record.ts'
import { agentLatencyFeedRows } from './agent-latency-feed-rows.ts'
import { campaignItemRows } from './campaign-item-rows.ts'
import { conversationContext } from './conversation-context.ts'
import { conversationItemRows, flagItemRows } from './conversation-item-rows.ts'
import { conversationLatencyFeedRow } from './conversation-latency-feed-row.ts'
import { conversationRow } from './conversation-row.ts'
import { handoffRows } from './handoff-rows.ts'
import { conversationSpan } from './metric-quality.ts'
import { testResultRows } from './test-result-rows.ts'
import { toolCallRows } from './tool-call-rows.ts'
import { defaultTurnTaking } from './turn-taking.ts'

// Each table's builder on a small conversation; conversation-rows.unit.test.ts checks them together.
const delivery = { topic: 't', partition: 1, offset: 7, timestampMs: 5_000 }
const at = (time: string) => `2026-03-01T${time}Z`
const ms = (time: string) => Date.parse(at(time))

function built(data: Partial<ConversationData>, receivedAt: number | null = 9_000) {
  const event = { event: 'conversation_complete', data: { session_id: 's-1', ...data } }
  const record = toAvroRecord(event, { source: 'prod', receivedAt })
  const context = conversationContext(record, delivery)
  const items = conversationItemRows(context)
  return { context, items }
}

const handedOn: HistoryItem[] = [
  { role: 'user', content: 'hi', created_at: at('10:00:01') },
  { kind: 'AgentHandoff', handoff_to_agent_id: 'b', instructions: 'be b', created_at: at('10:00:02') },
  { role: 'assistant', content: 'b here', created_at: at('10:00:03') },
  { kind: 'AgentHandoff', handoff_to_agent_id: 'c', created_at: at('10:00:04') },
]

describe('conversationContext', () => {
  it('versions by received_at, else the delivery time, and keys by the earliest time of the payload', () => {
    const history = [{ created_at: at('10:00:05'), metrics: { started_speaking_at: at('10:00:03') } }]
    const { context } = built({ agent_joined_at: at('10:00:04'), history })
    expect(context.columns).toEqual({
      session_id: 's-1',
      event_time: ms('10:00:03'),
      agent_id: '',
      agent_name: null,
      source: 'prod',
      version: 9_000,
      is_deleted: 0,
    })
    expect(context.keyTimeSource).toBe('earliest_timestamp')
    expect(context.itemCreatedAt).toEqual([ms('10:00:05')])
    expect(built({}, null).context.columns.version).toBe(5_000)
  })
})

describe('conversationItemRows and handoffRows', () => {
  it('moves the speaking agent on after each handoff item, and hands off from it', () => {
    const { context, items } = built({ agent_id: 'a', campaign_id: 'camp', history: handedOn })
    expect(items.map((item) => item.active_agent_id)).toEqual(['a', 'a', 'b', 'b'])
    const handoffs = handoffRows(context, items)
    expect(handoffs.map((row) => [row.item_index, row.from_agent_id, row.to_agent_id])).toEqual([
      [1, 'a', 'b'],
      [3, 'b', 'c'],
    ])
    expect(handoffs[0]).toMatchObject({
      handed_off_at: ms('10:00:02'),
      instructions: 'be b',
      campaign_id: 'camp',
      session_id: 's-1',
    })
  })
})

describe('toolCallRows', () => {
  it('pairs a call with its output, and keeps an output without a call alone', () => {
    const { context, items } = built({
      agent_id: 'a',
      history: [
        { kind: 'FunctionCall', tool_name: 'lookup', tool_call_id: 'c1', created_at: at('10:00:01') },
        { kind: 'FunctionCallOutput', tool_call_id: 'c1', tool_output: '42', created_at: at('10:00:02.500') },
        { kind: 'FunctionCallOutput', tool_call_id: 'lost', tool_is_error: true },
      ],
    })
    const calls = toolCallRows(context, items)
    expect(calls.map((row) => [row.call_index, row.call_item_index, row.output_item_index])).toEqual([
      [0, 0, 1],
      [2, null, 2],
    ])
    expect(calls[0]).toMatchObject({ tool_name: 'lookup', tool_output: '42', active_agent_id: 'a' })
    expect(calls[0]!.duration_seconds).toBe(1.5)
    expect(calls[1]!.duration_seconds).toBeNull()
  })
})

describe('agentLatencyFeedRows', () => {
  it("feeds each item's values to its minute, a flagged item's to the flagged columns", () => {
    const { context, items } = built({
      duration_seconds: 600,
      history: [
        { role: 'assistant', created_at: at('10:00:10'), metrics: { e2e_latency: 1.5 } },
        { role: 'assistant', created_at: at('10:00:50'), metrics: { e2e_latency: -1 } }, // negative: flagged
        { created_at: at('10:01:10') }, // no latency: no feed
        { role: 'assistant', metrics: { started_speaking_at: at('10:02:00'), llm_node_ttft: 0.25 } },
      ],
    })
    flagItemRows(items, conversationSpan(null, null, 600))
    const feed = agentLatencyFeedRows(items, context.columns)
    expect(feed.map((row) => row.minute)).toEqual([ms('10:00:00') / 1000, ms('10:02:00') / 1000])
    expect(feed[0]).toMatchObject({ e2e_latency_unflagged: [1.5], e2e_latency_flagged: [-1] })
    expect(feed[1]).toMatchObject({ llm_node_ttft_unflagged: [0.25], e2e_latency_unflagged: [] })
  })
})

describe('conversationRow and the rows that repeat it', () => {
  const history: HistoryItem[] = [
    { role: 'User', kind: 'message', interrupted: true, metrics: { e2e_latency: 2 } },
    { role: 'Assistant', metrics: { e2e_latency: 1 } },
    { role: 'agent', kind: 'FunctionCall', tool_name: 'lookup' },
    { role: 'user', metrics: { e2e_latency: 4 } },
  ]
  const rowsOf = (data: Partial<ConversationData>) => {
    const { context, items } = built({ history, ...data })
    const toolCalls = toolCallRows(context, items)
    const parts = {
      items,
      toolCalls,
      handoffs: handoffRows(context, items),
      durationSeconds: 30,
      configFingerprint: 'f00dfeedf00dfeed',
    }
    return { context, items, conversation: conversationRow(context, parts, defaultTurnTaking) }
  }

  it('counts turns (messages only), interruptions and tool calls, and takes percentiles', () => {
    const { conversation } = rowsOf({})
    expect(conversation).toMatchObject({
      item_count: 4,
      user_turn_count: 2,
      agent_turn_count: 1,
      interruption_count: 1,
      tool_call_count: 1,
      handoff_count: 0,
      e2e_latency_p50: 2,
      duration_seconds: 30,
      kafka_offset: 7,
      config_fingerprint: 'f00dfeedf00dfeed',
    })
  })

  it('writes a test result and a campaign item only for a conversation of a test or a campaign', () => {
    const plain = rowsOf({})
    expect(testResultRows(plain.context, plain.conversation)).toEqual([])
    expect(campaignItemRows(plain.context, plain.conversation)).toEqual([])
    const test = rowsOf({ test_id: 't-1', status: 'ended' })
    expect(testResultRows(test.context, test.conversation)).toMatchObject([
      { test_run_id: '', test_id: 't-1', status: 'ended', item_count: 4 },
    ])
    const campaign = rowsOf({ campaign_item_id: 'ci-1' })
    expect(campaignItemRows(campaign.context, campaign.conversation)).toMatchObject([
      { campaign_id: '', campaign_item_id: 'ci-1', user_turn_count: 2 },
    ])
  })

  it('feeds the per-conversation rollup whether it was a test and whether it failed', () => {
    const { conversation, items } = rowsOf({ test_run_id: 'run', error_message: 'boom' })
    expect(conversationLatencyFeedRow(conversation, items)).toMatchObject({
      is_test: 1,
      failed: 1,
      e2e_latency_unflagged: [2, 1, 4],
      e2e_latency_flagged: [],
    })
  })
})
