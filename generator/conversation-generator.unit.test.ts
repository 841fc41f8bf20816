import { describe, expect, it } from 'vitest'
import { validateConversationComplete } from '../core/event/event-validation.ts'
import { timelineProblems, toolCallProblems } from '../test/fixtures/payload-checks.ts'
import {
  schemaCoverage,
  schemaFieldPaths,
  schemaRecordPaths,
  unknownKeyLevels,
} from '../test/fixtures/schema-coverage.ts'
import type { ConversationCompleteEvent } from './conversation-generator.ts'
import {
  conversationStream,
  createWorld,
  generateConversation,
  generateConversations,
} from './conversation-generator.ts'
import { createRandom } from './random.ts'

const sample = generateConversations({ count: 200, seed: 2025 })
const items = (events: ConversationCompleteEvent[]) => events.flatMap((event) => event.data.history ?? [])
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const metric = (
  name:
    | 'e2e_latency'
    | 'llm_node_ttft'
    | 'tts_node_ttfb'
    | 'transcription_delay'
    | 'end_of_turn_delay'
    | 'on_user_turn_completed_delay',
) => items(sample).flatMap((item) => item.metrics?.[name] ?? [])

describe('generateConversations', () => {
  it('gives the same payloads for the same seed and options', () => {
    const options = { count: 25, seed: 7, historyItems: 30 }
    expect(JSON.stringify(generateConversations(options))).toBe(
      JSON.stringify(generateConversations(options)),
    )
  })

  it('gives other payloads for another seed', () => {
    const first = generateConversations({ count: 25, seed: 7 })
    const second = generateConversations({ count: 25, seed: 8 })
    expect(JSON.stringify(first)).not.toBe(JSON.stringify(second))
    const firstIds = new Set(first.map((event) => event.data.session_id))
    expect(second.filter((event) => firstIds.has(event.data.session_id))).toEqual([])
  })

  it.each([0, 1, 2, 3, 7, 40, 120])(
    'makes the requested count with exactly %i history items',
    (historyItems) => {
      const events = generateConversations({ count: 30, seed: historyItems, historyItems, failedRoomRate: 0 })
      expect(events).toHaveLength(30)
      for (const event of events) expect(event.data.history).toHaveLength(historyItems)
    },
  )

  it('gives failed rooms at most 3 items and the rest the requested length', () => {
    const failed = sample.filter((event) => event.data.room_metadata?.failed)
    expect(failed.length).toBeGreaterThan(0)
    for (const event of failed) expect(event.data.history?.length ?? 0).toBeLessThanOrEqual(3)
    for (const event of sample.filter((event) => !event.data.room_metadata?.failed))
      expect(event.data.history).toHaveLength(40)
  })

  it('uses only fields of the schema, with the types and formats the schema gives', () => {
    expect(schemaCoverage(sample).unknown).toEqual([])
    expect(sample.flatMap((event) => validateConversationComplete(event))).toEqual([])
  })

  it('sets every field of the schema somewhere in a sample of 200', () => {
    const { present } = schemaCoverage(sample)
    expect(schemaFieldPaths().filter((field) => !present.has(field))).toEqual([])
  })

  it('writes about 25 KB of JSON for 40 items', () => {
    const events = generateConversations({ count: 100, seed: 3, failedRoomRate: 0 })
    const average = events.reduce((sum, event) => sum + JSON.stringify(event).length, 0) / events.length
    expect(average).toBeGreaterThan(15_000)
    expect(average).toBeLessThan(40_000)
  })

  it('gives unique session, campaign item, item and tool call ids', () => {
    const unique = (values: unknown[]) => new Set(values).size === values.length
    expect(unique(sample.map((event) => event.data.session_id))).toBe(true)
    expect(unique(sample.flatMap((event) => event.data.campaign_item_id ?? []))).toBe(true)
    expect(unique(items(sample).map((item) => item.id))).toBe(true)
    expect(
      unique(
        items(sample)
          .filter((item) => item.kind === 'FunctionCall')
          .map((item) => item.tool_call_id),
      ),
    ).toBe(true)
    for (const event of sample)
      expect(event.data.session_id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      )
  })

  it('keeps every timeline consistent and pairs every tool call with its output', () => {
    expect(sample.flatMap((event) => timelineProblems(event))).toEqual([])
    expect(sample.flatMap((event) => toolCallProblems(event))).toEqual([])
  })

  it('spreads conversations over several agents, campaigns, tests and test runs', () => {
    const distinct = (values: unknown[]) => new Set(values.filter((value) => value != null)).size
    expect(distinct(sample.map((event) => event.data.agent_id))).toBe(6)
    expect(distinct(sample.map((event) => event.data.campaign_id))).toBe(4)
    expect(distinct(sample.map((event) => event.data.test_run_id))).toBe(3)
    expect(distinct(sample.map((event) => event.data.test_id))).toBeGreaterThan(3)
    const small = generateConversations({
      count: 100,
      seed: 1,
      agents: 2,
      campaigns: 1,
      tests: 1,
      testRuns: 1,
    })
    expect(distinct(small.map((event) => event.data.agent_id))).toBe(2)
    expect(distinct(small.map((event) => event.data.campaign_id))).toBe(1)
  })

  it('mixes the kinds of conversations and of history items', () => {
    const count = (predicate: (event: ConversationCompleteEvent) => boolean) =>
      sample.filter(predicate).length
    expect(
      count((event) => event.data.campaign_id != null && event.data.telecom_provider != null),
    ).toBeGreaterThan(40)
    expect(count((event) => event.data.test_run_id != null)).toBeGreaterThan(10)
    expect(
      count((event) => event.data.telecom_provider == null && event.data.test_run_id == null),
    ).toBeGreaterThan(20)
    const kinds = new Set(items(sample).map((item) => `${item.role}/${item.kind}`))
    expect([...kinds].sort()).toEqual([
      'Assistant/FunctionCall',
      'Assistant/Message',
      'System/AgentConfigUpdate',
      'System/AgentHandoff',
      'System/Message',
      'Tool/FunctionCallOutput',
      'User/Message',
    ])
    expect(items(sample).filter((item) => item.interrupted === true).length).toBeGreaterThan(50)
    expect(items(sample).filter((item) => item.tool_is_error === true).length).toBeGreaterThan(20)
  })

  it('draws latencies in seconds around realistic medians, with a tail', () => {
    const e2e = metric('e2e_latency')
    expect(median(e2e)).toBeGreaterThan(0.6)
    expect(median(e2e)).toBeLessThan(2.5)
    expect(Math.max(...e2e)).toBeGreaterThan(3)
    expect(median(metric('llm_node_ttft'))).toBeGreaterThan(0.2)
    expect(median(metric('llm_node_ttft'))).toBeLessThan(1.2)
    expect(median(metric('tts_node_ttfb'))).toBeGreaterThan(0.1)
    expect(median(metric('tts_node_ttfb'))).toBeLessThan(0.6)
    expect(median(metric('transcription_delay'))).toBeGreaterThan(0.05)
    expect(median(metric('transcription_delay'))).toBeLessThan(0.4)
    expect(median(metric('end_of_turn_delay'))).toBeGreaterThan(0.2)
    expect(median(metric('end_of_turn_delay'))).toBeLessThan(1)
    expect(median(metric('on_user_turn_completed_delay'))).toBeLessThan(0.05)
    expect(Math.min(...metric('on_user_turn_completed_delay'))).toBeGreaterThanOrEqual(0)
  })

  it('mixes Z and +02:00 timestamps, with and without fractions', () => {
    const starts = sample.map((event) => event.data.start_time ?? '')
    expect(starts.some((time) => time.endsWith('Z'))).toBe(true)
    expect(starts.some((time) => time.endsWith('+02:00'))).toBe(true)
    expect(starts.some((time) => !time.includes('.'))).toBe(true)
    expect(starts.some((time) => /\.\d{7}[Z+]/.test(time))).toBe(true)
  })

  it('follows the rates it is given', () => {
    const failing = generateConversations({ count: 20, seed: 5, failedRoomRate: 1 })
    expect(failing.every((event) => event.data.room_metadata?.failed && event.data.status === 'Failed')).toBe(
      true,
    )
    const tests = generateConversations({
      count: 20,
      seed: 5,
      testRunRate: 1,
      campaignRate: 0,
      webCallRate: 0,
    })
    expect(tests.every((event) => typeof event.data.test_id === 'string')).toBe(true)
    const nulls = generateConversations({ count: 20, seed: 5, explicitNullRate: 1, campaignRate: 0 })
    expect(nulls.every((event) => event.data.campaign_id === null)).toBe(true)
    expect(nulls.flatMap((event) => validateConversationComplete(event))).toEqual([])
  })

  it('adds unknown fields at every level when asked', () => {
    const events = generateConversations({
      count: 20,
      seed: 9,
      unknownFieldRate: 1,
      testRunRate: 1,
      campaignRate: 0,
      webCallRate: 0,
    })
    expect(unknownKeyLevels(events)).toEqual(schemaRecordPaths())
    expect(events.flatMap((event) => validateConversationComplete(event))).toEqual([])
  })

  it('streams the same conversations, starting in order inside the span', () => {
    const options = { count: 40, seed: 11, from: '2025-07-01T00:00:00Z', spanHours: 2 }
    const streamed = [...conversationStream(options)]
    expect(streamed).toEqual(generateConversations(options))
    const starts = streamed.map((event) => Date.parse(event.data.start_time!))
    expect(starts).toEqual([...starts].sort((a, b) => a - b))
    expect(Math.min(...starts)).toBeGreaterThanOrEqual(Date.parse('2025-07-01T00:00:00Z') - 1000)
    expect(Math.max(...starts)).toBeLessThan(Date.parse('2025-07-01T02:00:00Z'))
  })

  it('generates one conversation from a bare random source', () => {
    const event = generateConversation(createRandom(1), { historyItems: 10, failedRoomRate: 0 })
    expect(event.event).toBe('ConversationComplete')
    expect(event.data.history).toHaveLength(10)
    expect(validateConversationComplete(event)).toEqual([])
  })

  it('refuses bad options, naming them', () => {
    expect(() => generateConversations({ count: -1, seed: 1 })).toThrow('count must be an integer >= 0')
    expect(() => generateConversations({ count: 1, seed: 1, historyItems: 1.5 })).toThrow('historyItems')
    expect(() => generateConversations({ count: 1, seed: 1, failedRoomRate: 2 })).toThrow('failedRoomRate')
    expect(() => generateConversations({ count: 1, seed: Number.NaN })).toThrow('seed')
    expect(() => generateConversations({ count: 1, seed: 1, agents: 0 })).toThrow('agents')
    expect(() => generateConversations({ count: 1, seed: 1, from: 'yesterday' })).toThrow(
      'from is not a date',
    )
    expect(() =>
      generateConversations({ count: 1, seed: 1, testRunRate: 0.5, campaignRate: 0.4, webCallRate: 0.2 }),
    ).toThrow('must not exceed 1')
  })
})

describe('generateConversations over several stretches of time', () => {
  it('keeps the agents of the world it is given, whatever the seed of each stretch', () => {
    const world = createWorld(createRandom(9), { agents: 3, campaigns: 0, tests: 0 })
    const ids = new Set(world.agents.map((agent) => agent.id))
    for (const seed of [1, 2])
      for (const event of generateConversations({ count: 30, seed, world, testRunRate: 0, campaignRate: 0 }))
        expect(ids.has(event.data.agent_id!), event.data.agent_id!).toBe(true)
  })
})
