import { describe, expect, it } from 'vitest'
import type { ConversationCompleteEvent } from '../../../core/event/conversation-complete.types.ts'
import { toAvroRecord } from '../../../core/event/event-record.ts'
import type { ShapeType } from '../../../core/event/event-schema.ts'
import { eventShape } from '../../../core/event/event-schema.ts'
import { generateConversations } from '../../../generator/conversation-generator.ts'
import { withImpossibleMetrics } from '../../../test/fixtures/impossible-metrics.ts'
import { fixtureNames, loadFixture } from '../../../test/fixtures/index.ts'
import { agentConfig, configFingerprint } from './agent-config.ts'
import { conversationRows, type Delivery, latencyMetrics } from './conversation-rows.ts'
import { type TableName, type TableRows, tableFields, tableNames } from './table-rows.ts'
import { TransformError } from './transform-error.ts'

const delivery: Delivery = {
  topic: 't',
  partition: 2,
  offset: 41,
  timestampMs: Date.parse('2026-01-01T00:00:00Z'),
}
const receivedAt = Date.parse('2026-01-01T00:00:01.234Z')
const rowsOf = (event: ConversationCompleteEvent, source: string | null = 'prod') =>
  conversationRows(toAvroRecord(event, { source, receivedAt }), delivery)

// Where each field of the spec's §2.4 lands: [table, column]. The walk below fails for a schema
// field missing here, so a field added to the contract cannot be silently dropped.
const fieldColumns: Record<string, [TableName, string]> = {
  event: ['conversations', 'event'],
  'data.session_id': ['conversations', 'session_id'],
  'data.agent_id': ['conversations', 'agent_id'],
  'data.agent_name': ['conversations', 'agent_name'],
  'data.audio_url': ['conversations', 'audio_url'],
  'data.audio_url_expires_at': ['conversations', 'audio_url_expires_at'],
  'data.created_at': ['conversations', 'created_at'],
  'data.start_time': ['conversations', 'start_time'],
  'data.agent_joined_at': ['conversations', 'agent_joined_at'],
  'data.duration_seconds': ['conversations', 'duration_seconds'],
  'data.history[].role': ['conversation_items', 'role'],
  'data.history[].content': ['conversation_items', 'content'],
  'data.history[].kind': ['conversation_items', 'kind'],
  'data.history[].id': ['conversation_items', 'id'],
  'data.history[].created_at': ['conversation_items', 'created_at'],
  'data.history[].interrupted': ['conversation_items', 'interrupted'],
  'data.history[].transcript_confidence': ['conversation_items', 'transcript_confidence'],
  'data.history[].metrics.started_speaking_at': ['conversation_items', 'started_speaking_at'],
  'data.history[].metrics.stopped_speaking_at': ['conversation_items', 'stopped_speaking_at'],
  'data.history[].metrics.transcription_delay': ['conversation_items', 'transcription_delay'],
  'data.history[].metrics.end_of_turn_delay': ['conversation_items', 'end_of_turn_delay'],
  'data.history[].metrics.on_user_turn_completed_delay': [
    'conversation_items',
    'on_user_turn_completed_delay',
  ],
  'data.history[].metrics.llm_node_ttft': ['conversation_items', 'llm_node_ttft'],
  'data.history[].metrics.tts_node_ttfb': ['conversation_items', 'tts_node_ttfb'],
  'data.history[].metrics.e2e_latency': ['conversation_items', 'e2e_latency'],
  'data.history[].tool_name': ['conversation_items', 'tool_name'],
  'data.history[].tool_call_id': ['conversation_items', 'tool_call_id'],
  'data.history[].tool_arguments_json': ['conversation_items', 'tool_arguments_json'],
  'data.history[].tool_output': ['conversation_items', 'tool_output'],
  'data.history[].tool_is_error': ['conversation_items', 'tool_is_error'],
  'data.history[].handoff_to_agent_id': ['conversation_items', 'handoff_to_agent_id'],
  'data.history[].instructions': ['conversation_items', 'instructions'],
  'data.history[].tools_added': ['conversation_items', 'tools_added'],
  'data.telecom_provider': ['conversations', 'telecom_provider'],
  'data.from_number': ['conversations', 'from_number'],
  'data.to_number': ['conversations', 'to_number'],
  'data.call_sid': ['conversations', 'call_sid'],
  'data.campaign_item_id': ['conversations', 'campaign_item_id'],
  'data.campaign_id': ['conversations', 'campaign_id'],
  'data.campaign_name': ['conversations', 'campaign_name'],
  'data.url_parameters': ['conversations', 'url_parameters'],
  'data.test_run_id': ['conversations', 'test_run_id'],
  'data.test_id': ['conversations', 'test_id'],
  'data.test_status': ['conversations', 'test_status'],
  'data.test_eval_result.success': ['conversations', 'test_success'],
  'data.test_eval_result.reasons': ['conversations', 'test_reasons'],
  'data.test_eval_result.completion_reason': ['conversations', 'test_completion_reason'],
  'data.room_metadata.failed': ['conversations', 'room_failed'],
  'data.room_metadata.skipCompositeEgress': ['conversations', 'room_skip_composite_egress'],
  'data.room_metadata.error': ['conversations', 'room_error'],
  'data.status': ['conversations', 'status'],
  'data.error_message': ['conversations', 'error_message'],
}

/** A payload with a distinct value in every field of the schema, and what each leaf should store. */
function probe(): { event: ConversationCompleteEvent; expected: Map<string, unknown> } {
  const expected = new Map<string, unknown>()
  let counter = 0
  const valueFor = (type: ShapeType, path: string): unknown => {
    counter++
    switch (type.kind) {
      case 'string':
        if (type.format === 'uuid') {
          const value = `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`
          expected.set(path, value)
          return value
        }
        if (type.format === 'date-time') {
          const ms = Date.UTC(2025, 5, 1, 10, 0, counter, counter)
          expected.set(path, ms)
          return new Date(ms).toISOString().replace('Z', '1234+00:00') // sub-ms digits, an offset
        }
        expected.set(path, `value-${counter}`)
        return `value-${counter}`
      case 'double':
        // A measured value (a history item's) is stored to Float32's precision (measuredValue).
        expected.set(
          path,
          path.startsWith('data.history[]') ? Math.fround(counter + 0.1 + 0.2) : counter + 0.1 + 0.2,
        )
        return counter + 0.1 + 0.2
      case 'long':
        expected.set(path, counter)
        return counter
      case 'boolean':
        expected.set(path, true)
        return true
      case 'map':
        expected.set(path, { [`key-${counter}`]: `value-${counter}` })
        return { [`key-${counter}`]: `value-${counter}` }
      case 'array':
        if (type.items.kind === 'record') return [valueFor(type.items, `${path}[]`)]
        expected.set(path, [`value-${counter}`])
        return [`value-${counter}`]
      case 'record':
        return Object.fromEntries(
          type.fields.map((field) => [
            field.name,
            valueFor(field.type, path ? `${path}.${field.name}` : field.name),
          ]),
        )
    }
  }
  const event = valueFor(eventShape, '') as ConversationCompleteEvent
  return { event, expected }
}

describe('conversationRows', () => {
  it('stores every field of the ConversationComplete schema in a column', () => {
    const { event, expected } = probe()
    // A call item and an output item would pair; the probe is one item carrying every field.
    const rows = rowsOf(event)
    expect([...expected.keys()].sort()).toEqual(Object.keys(fieldColumns).sort())
    for (const [path, value] of expected) {
      const [table, column] = fieldColumns[path]!
      const row = rows[table][0] as unknown as Record<string, unknown>
      expect(row, path).toBeDefined()
      expect(row[column], path).toEqual(value)
    }
  })

  it('builds rows with exactly the columns of each table', () => {
    for (const event of [...Object.values(fixtureNames.map(loadFixture)), probe().event]) {
      const rows = rowsOf(event)
      for (const table of tableNames)
        for (const row of rows[table])
          expect(Object.keys(row).sort(), table).toEqual([...tableFields[table]].sort())
    }
  })

  it('keeps unknown fields of every object as JSON text', () => {
    const event = loadFixture('unknown-fields')
    const rows = rowsOf(event)
    const conversation = rows.conversations[0]!
    const known = new Set(eventShape.fields.map((field) => field.name))
    const envelopeExtra = Object.fromEntries(Object.entries(event).filter(([key]) => !known.has(key)))
    expect(JSON.parse(conversation.envelope_extra_fields_json ?? '{}')).toEqual(envelopeExtra)
    expect(conversation.extra_fields_json).not.toBeNull()
    const carried = rows.conversation_items.filter((item) => item.extra_fields_json !== null)
    expect(carried.length).toBeGreaterThan(0)
    for (const item of carried) {
      const original = event.data.history![item.item_index]!
      for (const [key, value] of Object.entries(JSON.parse(item.extra_fields_json!)))
        expect(original[key]).toEqual(value)
    }
  })

  it('copies the conversation context into every item and derives its figures', () => {
    const event = loadFixture('tool-calls')
    const rows = rowsOf(event)
    const history = event.data.history!
    expect(rows.conversation_items).toHaveLength(history.length)
    for (const item of rows.conversation_items) {
      expect(item.session_id).toBe(event.data.session_id)
      expect(item.agent_id).toBe(event.data.agent_id)
      expect(item.start_time).toBe(Date.parse(event.data.start_time!))
      expect(item.event_time).toBe(Date.parse(event.data.start_time!))
      expect(item.source).toBe('prod')
      expect(item.version).toBe(receivedAt)
      expect(item.content).toBe(history[item.item_index]!.content ?? null)
    }
    const conversation = rows.conversations[0]!
    const e2e = history.flatMap((item) =>
      item.metrics?.e2e_latency != null ? [Math.fround(item.metrics.e2e_latency)] : [],
    )
    expect(conversation.item_count).toBe(history.length)
    expect(conversation.tool_call_count).toBe(history.filter((item) => item.kind === 'FunctionCall').length)
    expect(conversation.tool_error_count).toBe(history.filter((item) => item.tool_is_error === true).length)
    expect(conversation.e2e_latency_p50).toBe(
      [...e2e].sort((a, b) => a - b).length % 2
        ? [...e2e].sort((a, b) => a - b)[(e2e.length - 1) / 2]
        : ([...e2e].sort((a, b) => a - b)[e2e.length / 2 - 1]! +
            [...e2e].sort((a, b) => a - b)[e2e.length / 2]!) /
            2,
    )
    expect(conversation.kafka_offset).toBe(41)
    expect(conversation.kafka_partition).toBe(2)
  })

  it('flags impossible metrics on their items, keeps the values, and counts the flagged items', () => {
    const { event, flags } = withImpossibleMetrics(loadFixture('full'), 'flagged')
    const rows = rowsOf(event)
    const history = event.data.history!
    for (const item of rows.conversation_items) {
      expect(item.metric_flags, `item ${item.item_index}`).toEqual(flags.get(item.item_index) ?? [])
      const { transcription_delay, e2e_latency } = history[item.item_index]!.metrics ?? {}
      expect(item.transcription_delay).toBe(
        transcription_delay == null ? null : Math.fround(transcription_delay),
      )
      expect(item.e2e_latency).toBe(e2e_latency == null ? null : Math.fround(e2e_latency))
    }
    expect(rows.conversations[0]!.flagged_item_count).toBe(flags.size)
    expect(rowsOf(loadFixture('full')).conversations[0]!.flagged_item_count).toBe(0)
  })

  it('pairs every tool call with its output by tool_call_id', () => {
    const event = loadFixture('tool-calls')
    const rows = rowsOf(event)
    const history = event.data.history!
    expect(rows.tool_calls.length).toBe(history.filter((item) => item.kind === 'FunctionCall').length)
    for (const call of rows.tool_calls) {
      const callItem = history[call.call_item_index!]!
      const outputItem = history[call.output_item_index!]!
      expect(callItem.kind).toBe('FunctionCall')
      expect(outputItem.kind).toBe('FunctionCallOutput')
      expect(outputItem.tool_call_id).toBe(callItem.tool_call_id)
      expect(call.tool_arguments_json).toBe(callItem.tool_arguments_json)
      expect(call.tool_output).toBe(outputItem.tool_output)
      expect(call.duration_seconds).toBe(
        (Date.parse(outputItem.created_at!) - Date.parse(callItem.created_at!)) / 1000,
      )
    }
  })

  it('records handoffs and which agent speaks after them', () => {
    const event = loadFixture('handoff')
    const rows = rowsOf(event)
    const history = event.data.history!
    const handoffIndex = history.findIndex((item) => item.handoff_to_agent_id != null)
    const target = history[handoffIndex]!.handoff_to_agent_id!
    expect(rows.handoffs).toEqual([
      expect.objectContaining({
        item_index: handoffIndex,
        from_agent_id: event.data.agent_id,
        to_agent_id: target,
      }),
    ])
    expect(rows.conversation_items[handoffIndex]!.active_agent_id).toBe(event.data.agent_id)
    expect(rows.conversation_items[handoffIndex + 1]!.active_agent_id).toBe(target)
    expect(rows.conversations[0]!.handoff_count).toBe(1)
  })

  it('stores the fingerprint of the agent configuration with the conversation, and what it stands for', () => {
    const rows = rowsOf(loadFixture('full'))
    const config = agentConfig(loadFixture('full').data.history!)!
    const fingerprint = configFingerprint(config)
    expect(rows.conversations[0]!.config_fingerprint).toBe(fingerprint)
    expect(rows.agent_versions).toEqual([
      {
        session_id: rows.conversations[0]!.session_id,
        version: receivedAt,
        agent_id: rows.conversations[0]!.agent_id,
        config_fingerprint: fingerprint,
        instructions: config.instructions,
        update_instructions: config.updateInstructions,
        tools: ['apply_discount', 'quote_renewal'],
        handoff_targets: ['25879895-69ab-4bf5-bd59-70c66698c5ab'],
      },
    ])
    const silent = rowsOf({
      ...loadFixture('failed-room'),
      data: { ...loadFixture('failed-room').data, history: [] },
    })
    expect(silent.conversations[0]!.config_fingerprint).toBeNull()
    expect(silent.agent_versions).toEqual([])
  })

  it('writes a test result and a campaign item only for such conversations', () => {
    const test = rowsOf(loadFixture('test-run'))
    expect(test.test_results).toHaveLength(1)
    expect(test.test_results[0]!.test_run_id).toBe(loadFixture('test-run').data.test_run_id)
    expect(test.campaign_items).toHaveLength(0)
    const campaign = rowsOf(loadFixture('campaign-call'))
    expect(campaign.campaign_items).toHaveLength(1)
    expect(campaign.campaign_items[0]!.campaign_item_id).toBe(
      loadFixture('campaign-call').data.campaign_item_id,
    )
    expect(campaign.test_results).toHaveLength(0)
  })

  it('feeds the rollup each latency value once, in the minute of its item', () => {
    for (const event of generateConversations({ count: 30, seed: 7 })) {
      const rows: TableRows = rowsOf(event)
      for (const name of [
        'e2e_latency',
        'llm_node_ttft',
        'tts_node_ttfb',
        'transcription_delay',
        'end_of_turn_delay',
      ] as const) {
        const fed = rows.agent_latency_feed.flatMap((row) => [
          ...row[`${name}_unflagged`],
          ...row[`${name}_flagged`],
        ])
        const stored = rows.conversation_items.flatMap((item) => (item[name] === null ? [] : [item[name]]))
        expect(fed.sort()).toEqual(stored.sort())
      }
      for (const row of rows.agent_latency_feed) expect(row.minute % 60).toBe(0)
    }
  })

  it('keys the rollup by the minute ClickHouse stores: before 1970 and after 2106 saturate, one row each', () => {
    // DateTime is UInt32 seconds: ClickHouse stores an earlier minute as 0 and a later one as 2^32-1.
    // Keyed by the unsaturated minute, two such minutes were two feed rows under one stored key (one
    // lost on merge) and a re-delivery's plan saw the stored key as gone and tombstoned it.
    const event = loadFixture('full')
    const times = ['1960-03-01T10:00:00.000Z', '1960-03-01T10:07:00.000Z', '2200-01-01T00:00:00.000Z']
    event.data.history = event.data.history?.map((item, index) => ({ ...item, created_at: times[index % 3] }))
    const rows = rowsOf(event)
    const minutes = rows.agent_latency_feed.map((row) => row.minute)
    expect(minutes).toEqual([...new Set(minutes)])
    for (const minute of minutes) expect([0, 0xffff_ffff]).toContain(minute)
    for (const name of latencyMetrics) {
      const stored = rows.conversation_items.flatMap((item) => (item[name] === null ? [] : [item[name]]))
      expect(
        rows.agent_latency_feed
          .flatMap((row) => [...row[`${name}_unflagged`], ...row[`${name}_flagged`]])
          .sort(),
        name,
      ).toEqual(stored.sort())
    }
  })

  it('feeds the rollups the values of unflagged and of flagged items apart', () => {
    const { event, flags } = withImpossibleMetrics(loadFixture('full'), 'rollup')
    const rows = rowsOf(event)
    const latencyNames = latencyMetrics
    let left = 0
    for (const name of latencyNames) {
      const values = (flagged: boolean | undefined) =>
        rows.conversation_items
          .filter((item) => flagged === undefined || flags.has(item.item_index) === flagged)
          .flatMap((item) => (item[name] === null ? [] : [item[name]]))
          .sort()
      expect(rows.agent_latency_feed.flatMap((row) => row[`${name}_unflagged`]).sort(), name).toEqual(
        values(false),
      )
      expect(rows.agent_latency_feed.flatMap((row) => row[`${name}_flagged`]).sort(), name).toEqual(
        values(true),
      )
      left += values(true).length
    }
    expect(left).toBeGreaterThan(0) // the fixture has flagged values to leave out
    const [conversation] = rows.conversation_latency_feed
    const e2e = (flagged: boolean) =>
      rows.conversation_items
        .filter((item) => item.e2e_latency !== null && flags.has(item.item_index) === flagged)
        .map((item) => item.e2e_latency)
    expect(conversation!.e2e_latency_unflagged).toEqual(e2e(false))
    expect(conversation!.e2e_latency_flagged).toEqual(e2e(true))
    // A clean conversation: no flagged values.
    for (const row of rowsOf(loadFixture('full')).agent_latency_feed)
      for (const name of latencyNames) expect(row[`${name}_flagged`]).toEqual([])
  })

  it('is deterministic: the same record and delivery give the same rows', () => {
    const [event] = generateConversations({ count: 1, seed: 3 })
    expect(rowsOf(event!)).toEqual(rowsOf(event!))
  })

  it('refuses what cannot become a row, naming the field', () => {
    const event = loadFixture('full')
    event.data.history![1]!.created_at = 'yesterday'
    expect(() => rowsOf(event)).toThrow(TransformError)
    expect(() => rowsOf(event)).toThrow(/data\.history\[1\]\.created_at/)
    const infinite = loadFixture('full')
    infinite.data.duration_seconds = Number.POSITIVE_INFINITY
    expect(() => rowsOf(infinite)).toThrow(/data\.duration_seconds/)
  })

  it('names the history item and field of every value it refuses (the path is built only then)', () => {
    const cases: Array<[string, unknown]> = [
      ['created_at', '2026-02-31T00:00:00Z'],
      ['metrics.started_speaking_at', 'x'],
      ['metrics.stopped_speaking_at', 'x'],
      ['transcript_confidence', Number.NaN],
      ['metrics.transcription_delay', Number.NaN],
      ['metrics.end_of_turn_delay', Number.NaN],
      ['metrics.on_user_turn_completed_delay', Number.NaN],
      ['metrics.llm_node_ttft', Number.POSITIVE_INFINITY],
      ['metrics.tts_node_ttfb', Number.NEGATIVE_INFINITY],
      ['metrics.e2e_latency', Number.NaN],
    ]
    for (const [field, value] of cases) {
      const event = loadFixture('full')
      const item = event.data.history![2]! as Record<string, unknown> & { metrics?: Record<string, unknown> }
      if (field.startsWith('metrics.'))
        item.metrics = { ...item.metrics, [field.slice('metrics.'.length)]: value }
      else item[field] = value
      let refused: unknown
      try {
        rowsOf(event)
      } catch (error) {
        refused = error
      }
      expect(refused, field).toBeInstanceOf(TransformError)
      expect((refused as TransformError).path, field).toBe(`data.history[2].${field}`)
    }
  })

  it('gives each flagged item its own flags, and no item flags it does not have', () => {
    const { event, flags } = withImpossibleMetrics(loadFixture('full'), 'own')
    const items = rowsOf(event).conversation_items
    expect(flags.size).toBeGreaterThan(0)
    expect(flags.size).toBeLessThan(items.length)
    for (const item of items)
      expect(item.metric_flags, `item ${item.item_index}`).toEqual(flags.get(item.item_index) ?? [])
    // The unflagged share one empty list, which nothing can add to.
    const clean = items.find((item) => !flags.has(item.item_index))!
    expect(() => (clean.metric_flags as string[]).push('negative_delay')).toThrow(TypeError)
    expect(items.every((item) => flags.has(item.item_index) || item.metric_flags.length === 0)).toBe(true)
  })

  it('keys a conversation by a time from its payload only: the same for every delivery', () => {
    const event = loadFixture('web-call')
    delete event.data.start_time
    expect(rowsOf(event).conversations[0]).toMatchObject({
      event_time: Date.parse(event.data.created_at!),
      event_time_source: 'created_at',
    })
    delete event.data.created_at
    const earliest = Math.min(
      ...[event.data.agent_joined_at, ...(event.data.history ?? []).map((item) => item.created_at)]
        .filter((value): value is string => value != null)
        .map(Date.parse),
    )
    const again = (receivedAt: number, timestampMs: number) =>
      conversationRows(toAvroRecord(event, { source: 'prod', receivedAt }), { ...delivery, timestampMs })
    const first = again(receivedAt, delivery.timestampMs)
    const second = again(receivedAt + 3_600_000, delivery.timestampMs + 3_600_000)
    expect(first.conversations[0]).toMatchObject({
      event_time: earliest,
      event_time_source: 'earliest_timestamp',
    })
    for (const table of tableNames)
      expect(
        second[table].map((row) => 'event_time' in row && row.event_time),
        table,
      ).toEqual(first[table].map((row) => 'event_time' in row && row.event_time))
    expect(second.agent_latency_feed.map((row) => row.minute)).toEqual(
      first.agent_latency_feed.map((row) => row.minute),
    )
    event.data.history = []
    delete event.data.agent_joined_at
    expect(rowsOf(event).conversations[0]).toMatchObject({ event_time: 0, event_time_source: 'none' })
  })
})
