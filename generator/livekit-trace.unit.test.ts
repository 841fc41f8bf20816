import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { generateConversations } from './conversation-generator.ts'
import { exportRequests, type LivekitTrace, livekitTrace, type OtlpJsonRequest } from './livekit-trace.ts'

// The synthetic LiveKit traces must look like the framework's own: every span name and attribute
// they use appears, with the same value type, in the trace LiveKit Agents 1.7.1 exported itself.
const fixture = JSON.parse(
  readFileSync(new URL('../test/fixtures/otlp/livekit-1.x-conversation.json', import.meta.url), 'utf8'),
) as OtlpJsonRequest
const spansOf = (request: OtlpJsonRequest) =>
  request.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
const typeOf = (value: object) => Object.keys(value)[0]
const real = new Map<string, Map<string, string | undefined>>()
for (const span of spansOf(fixture)) {
  const keys = real.get(span.name) ?? new Map()
  for (const { key, value } of span.attributes ?? []) keys.set(key, typeOf(value))
  real.set(span.name, keys)
}

const events = generateConversations({ count: 40, seed: 34, historyItems: 40, handoffRate: 0.3 })
const traces = events.map((event) => ({ event, trace: livekitTrace(event) }))
const named = (trace: LivekitTrace, name: string) => trace.spans.filter((span) => span.name === name)
const value = (span: { attributes: { key: string; value: object }[] }, key: string) => {
  const found = span.attributes.find((entry) => entry.key === key)?.value
  return found ? Object.values(found)[0] : undefined
}

describe('livekitTrace (a generated conversation as LiveKit Agents 1.7 traces it)', () => {
  it('uses only span names and attributes the framework sends, with their value types', () => {
    for (const { trace } of traces)
      for (const span of trace.spans) {
        const keys = real.get(span.name)
        expect(keys, `span ${span.name}`).toBeDefined()
        for (const { key, value: attributeValue } of span.attributes)
          expect(keys!.has(key) ? typeOf(attributeValue) : 'absent', `${span.name} ${key}`).toBe(
            keys!.get(key),
          )
      }
  })

  it('is one tree under agent_session, with a span for every turn and tool call', () => {
    for (const { event, trace } of traces) {
      const ids = new Set(trace.spans.map((span) => span.spanId))
      const roots = trace.spans.filter((span) => !span.parentSpanId)
      expect(roots.map((span) => span.name)).toEqual(['agent_session'])
      for (const span of trace.spans) {
        expect(span.traceId).toBe(trace.traceId)
        if (span.parentSpanId) expect(ids.has(span.parentSpanId)).toBe(true)
        expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true)
      }
      const history = event.data.history ?? []
      const count = (kind: string, role?: string) =>
        history.filter((item) => item.kind === kind && (role === undefined || item.role === role)).length
      expect(named(trace, 'user_turn').length).toBe(count('Message', 'User'))
      expect(
        named(trace, 'agent_turn').filter((span) => value(span, 'lk.pii.response.text') !== undefined).length,
      ).toBe(count('Message', 'Assistant'))
      expect(named(trace, 'function_tool').length).toBe(count('FunctionCall'))
      expect(named(trace, 'start_agent_activity').length).toBe(1 + count('AgentHandoff'))
    }
    expect(traces.some(({ event }) => event.data.history?.some((item) => item.kind === 'AgentHandoff'))).toBe(
      true,
    )
  })

  it('carries the latencies and texts of the conversation, and no e2e latency after a tool call', () => {
    for (const { event, trace } of traces) {
      const replies = named(trace, 'agent_turn').filter(
        (span) => value(span, 'lk.pii.response.text') !== undefined,
      )
      const assistant = (event.data.history ?? []).filter(
        (item) => item.kind === 'Message' && item.role === 'Assistant',
      )
      replies.forEach((span, index) => {
        const item = assistant[index]!
        expect(value(span, 'lk.pii.response.text')).toBe(item.content)
        expect(value(span, 'lk.interrupted')).toBe(item.interrupted ?? false)
        const e2e = value(span, 'lk.e2e_latency')
        if (e2e !== undefined) expect(e2e).toBe(item.metrics?.e2e_latency)
        if (value(span, 'lk.parent_generation_id') !== undefined) expect(e2e).toBeUndefined()
      })
      const users = (event.data.history ?? []).filter(
        (item) => item.kind === 'Message' && item.role === 'User',
      )
      named(trace, 'user_turn').forEach((span, index) => {
        expect(value(span, 'lk.pii.user_transcript')).toBe(users[index]!.content)
        expect(value(span, 'lk.end_of_turn_delay')).toBe(users[index]!.metrics?.end_of_turn_delay)
      })
    }
  })

  it('is the same trace for the same conversation', () => {
    expect(livekitTrace(events[0]!)).toEqual(livekitTrace(events[0]!))
  })
})

describe('exportRequests (the batches of a BatchSpanProcessor)', () => {
  it('sends every span once, at most maxBatch a request, the root in the last request', () => {
    for (const { trace } of traces.slice(0, 10)) {
      const requests = exportRequests(trace, { maxBatch: 16 })
      const sent = requests.flatMap(spansOf)
      expect(sent.map((span) => span.spanId).sort()).toEqual(trace.spans.map((span) => span.spanId).sort())
      for (const request of requests) expect(spansOf(request).length).toBeLessThanOrEqual(16)
      expect(spansOf(requests.at(-1)!).some((span) => span.name === 'agent_session')).toBe(true)
      expect(requests.length).toBeGreaterThan(1)
    }
  })
})
