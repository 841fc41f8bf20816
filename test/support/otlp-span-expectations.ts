import { expect } from 'vitest'
import type { FixtureRequest } from './otlp-js-exporter.ts'

// What the stored rows of an OTLP conversation must hold, read from the spans that were sent (a
// fixture, or the file a framework's run wrote of what it exported): each item's latencies and
// speaking times from its span's attributes and times, as the worker stores them (measured values
// to Float32's precision, times to the millisecond). Used by the end-to-end tests of the fixtures
// and of the frameworks themselves.
type Row = Record<string, unknown>
export type Span = FixtureRequest['resourceSpans'][number]['scopeSpans'][number]['spans'][number]

export const spansOf = (request: FixtureRequest): Span[] =>
  request.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
export const named = (request: FixtureRequest, name: string): Span[] =>
  spansOf(request).filter((span) => span.name === name)
export const childOf = (request: FixtureRequest, parent: Span, name: string): Span | undefined =>
  spansOf(request).find((span) => span.parentSpanId === parent.spanId && span.name === name)
export const traceIdOf = (request: FixtureRequest): string => spansOf(request)[0]!.traceId

export function attribute(span: Span, key: string): string | number | boolean | undefined {
  const value = span.attributes?.find((entry) => entry.key === key)?.value
  const int = value?.intValue === undefined ? undefined : Number(value.intValue)
  return value?.stringValue ?? value?.doubleValue ?? value?.boolValue ?? int
}
const micros = (nanos: string) => Number(BigInt(nanos) / 1000n)
/** A span time as ClickHouse's DateTime64(3) reads back in JSON ('YYYY-MM-DD hh:mm:ss.mmm', UTC). */
export const stored = (nanos: string): string =>
  new Date(Math.floor(micros(nanos) / 1000)).toISOString().replace('T', ' ').slice(0, 23)
/** A measured value as the worker stores it: to Float32's precision (migration 0016), or NULL. */
export const measured = (value: unknown): number | null =>
  typeof value === 'number' ? Math.fround(value) : null
export const seconds = (span: Span): number =>
  (micros(span.endTimeUnixNano) - micros(span.startTimeUnixNano)) / 1e6

const messages = (items: Row[], role: string) =>
  items.filter((item) => item.role === role && item.kind === 'Message')

/**
 * LiveKit Agents: each user message has its user_turn's delays and user_speaking's times (a text
 * session has no user_turn: nothing to compare); each reply (an agent_turn with a text or an
 * agent_speaking) its agent_turn's e2e latency and interruption, its llm_node's TTFT, its
 * tts_node's TTFB (none without TTS) and its agent_speaking's times.
 */
export function expectLiveKitItems(items: Row[], request: FixtureRequest): void {
  const userTurns = named(request, 'user_turn')
  if (userTurns.length > 0) expect(messages(items, 'User')).toHaveLength(userTurns.length)
  userTurns.forEach((turn, index) => {
    const item = messages(items, 'User')[index]!
    const speaking = childOf(request, turn, 'user_speaking')!
    expect(item.content).toBe(attribute(turn, 'lk.pii.user_transcript'))
    const confidence = attribute(turn, 'lk.transcript_confidence')
    expect(item.transcript_confidence).toBe(confidence === 0 ? null : measured(confidence)) // 0: none (§10.4, 7)
    expect(item.transcription_delay).toBe(measured(attribute(turn, 'lk.transcription_delay')))
    expect(item.end_of_turn_delay).toBe(measured(attribute(turn, 'lk.end_of_turn_delay')))
    expect(item.started_speaking_at).toBe(stored(speaking.startTimeUnixNano))
    expect(item.stopped_speaking_at).toBe(stored(speaking.endTimeUnixNano))
    expect(item.interrupted).toBe(false)
  })
  const replies = named(request, 'agent_turn').filter(
    (turn) =>
      attribute(turn, 'lk.pii.response.text') !== undefined || childOf(request, turn, 'agent_speaking'),
  )
  expect(messages(items, 'Assistant')).toHaveLength(replies.length)
  replies.forEach((turn, index) => {
    const item = messages(items, 'Assistant')[index]!
    const speaking = childOf(request, turn, 'agent_speaking')!
    const tts = childOf(request, turn, 'tts_node')
    expect(item.content).toBe(attribute(turn, 'lk.pii.response.text'))
    expect(item.e2e_latency).toBe(measured(attribute(turn, 'lk.e2e_latency')))
    expect(item.llm_node_ttft).toBe(
      measured(attribute(childOf(request, turn, 'llm_node')!, 'lk.response.ttft')),
    )
    expect(item.tts_node_ttfb).toBe(tts ? measured(attribute(tts, 'lk.response.ttfb')) : null)
    expect(item.started_speaking_at).toBe(stored(speaking.startTimeUnixNano))
    expect(item.stopped_speaking_at).toBe(stored(speaking.endTimeUnixNano))
    expect(item.interrupted).toBe(attribute(turn, 'lk.interrupted'))
  })
}

/** LiveKit Agents: one tool_calls row per function_tool span, with its name, id, arguments, output and times. */
export function expectLiveKitToolCalls(calls: Row[], request: FixtureRequest): void {
  const tools = named(request, 'function_tool')
  expect(calls).toHaveLength(tools.length)
  tools.forEach((tool, index) => {
    expect(calls[index]).toMatchObject({
      tool_call_id: attribute(tool, 'lk.function_tool.id'),
      tool_name: attribute(tool, 'lk.function_tool.name'),
      tool_arguments_json: attribute(tool, 'lk.pii.function_tool.arguments'),
      tool_output: attribute(tool, 'lk.pii.function_tool.output'),
      tool_is_error: attribute(tool, 'lk.function_tool.is_error'),
      called_at: stored(tool.startTimeUnixNano),
      output_at: stored(tool.endTimeUnixNano),
    })
  })
}

/**
 * Pipecat: each turn's user message has its stt span's transcript, TTFB (the transcription delay)
 * and start; each reply (an llm span with output) its TTFB as the LLM's TTFT and the next tts
 * span's TTFB; the turn's user-bot latency is on its first reply.
 */
export function expectPipecatItems(items: Row[], request: FixtureRequest): void {
  const stts = named(request, 'stt')
  expect(messages(items, 'User').map((item) => item.content)).toEqual(
    stts.map((span) => attribute(span, 'transcript')),
  )
  stts.forEach((stt, index) => {
    const item = messages(items, 'User')[index]!
    expect(item.transcription_delay).toBe(measured(attribute(stt, 'metrics.ttfb')))
    expect(item.end_of_turn_delay).toBeNull() // Pipecat does not send it
    expect(item.started_speaking_at).toBe(stored(stt.startTimeUnixNano))
  })
  const llms = named(request, 'llm').filter((span) => String(attribute(span, 'output') ?? '').trim() !== '')
  const ttss = named(request, 'tts')
  expect(messages(items, 'Assistant')).toHaveLength(llms.length)
  llms.forEach((llm, index) => {
    const item = messages(items, 'Assistant')[index]!
    const tts = ttss.find((span) => BigInt(span.startTimeUnixNano) >= BigInt(llm.startTimeUnixNano))
    expect(item.content).toBe(String(attribute(llm, 'output')).trim())
    expect(item.llm_node_ttft).toBe(measured(attribute(llm, 'metrics.ttfb')))
    expect(item.tts_node_ttfb).toBe(tts ? measured(attribute(tts, 'metrics.ttfb')) : null)
  })
  // The turn's latency on the first reply of each turn with a user message.
  const latencies = named(request, 'turn')
    .map((turn) => measured(attribute(turn, 'turn.user_bot_latency_seconds')))
    .filter((latency) => latency !== null)
  expect(
    messages(items, 'Assistant').flatMap((item) => (item.e2e_latency === null ? [] : [item.e2e_latency])),
  ).toEqual(latencies)
}
