import { createHash } from 'node:crypto'
import type { ConversationCompleteEvent, HistoryItem } from '../core/event/conversation-complete.types.ts'
import { createRandom, type Random } from './random.ts'

// A generated conversation as the OTLP trace LiveKit Agents 1.7 exports for it (span tree and
// attribute names of docs/otlp.md §3.2–3.3, as in test/fixtures/otlp/livekit-1.x-conversation.json),
// in OTLP JSON, for tests and benchmarks of the receiver and the assembler at any size. Pure.
// What LiveKit does not send is left out as it would be: numbers, campaign and test fields, the
// recording, on_user_turn_completed_delay, and the e2e latency of a reply after a tool call.

export type OtlpJsonValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { doubleValue: number }
  | { intValue: string }
  | { arrayValue: { values: OtlpJsonValue[] } }

export interface OtlpJsonAttribute {
  key: string
  value: OtlpJsonValue
}

export interface OtlpJsonSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes: OtlpJsonAttribute[]
  status: { code?: number; message?: string }
}

/** An ExportTraceServiceRequest in OTLP JSON (hex ids, 64-bit integers as strings). */
export interface OtlpJsonRequest {
  resourceSpans: {
    resource: { attributes: OtlpJsonAttribute[] }
    scopeSpans: { scope: { name: string }; spans: OtlpJsonSpan[] }[]
  }[]
}

export interface LivekitTrace {
  traceId: string
  resource: OtlpJsonAttribute[]
  spans: OtlpJsonSpan[]
}

export const livekitScope = 'livekit-agents'

function attribute(key: string, value: string | number | boolean | string[]): OtlpJsonAttribute {
  if (Array.isArray(value))
    return { key, value: { arrayValue: { values: value.map((v) => ({ stringValue: v })) } } }
  if (typeof value === 'string') return { key, value: { stringValue: value } }
  if (typeof value === 'boolean') return { key, value: { boolValue: value } }
  return { key, value: { doubleValue: value } }
}

const nanos = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n).toString()
const at = (iso: string | null | undefined): number | undefined => (iso ? Date.parse(iso) : undefined)
const snake = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')

/** The same conversation always makes the same trace (ids from its session id). */
function seededRandom(sessionId: string): Random {
  return createRandom(createHash('sha256').update(sessionId).digest().readUInt32BE(0))
}

type ContextItem = Record<string, unknown>

export function livekitTrace(event: ConversationCompleteEvent, serviceName = 'voice-agent'): LivekitTrace {
  const data = event.data
  const rng = seededRandom(data.session_id)
  const traceId = createHash('sha256').update(`trace:${data.session_id}`).digest('hex').slice(0, 32)
  const history = data.history ?? []
  const times = history.flatMap((item) => [
    at(item.created_at),
    at(item.metrics?.started_speaking_at),
    at(item.metrics?.stopped_speaking_at),
  ])
  const known = times.filter((time): time is number => time !== undefined)
  const sessionStart = at(data.start_time) ?? at(data.created_at) ?? Math.min(...known)
  const sessionEnd = Math.max(
    sessionStart + (data.duration_seconds ?? 0) * 1000,
    ...known.map((time) => time + 1000),
  )
  const spans: OtlpJsonSpan[] = []
  const span = (
    name: string,
    parent: OtlpJsonSpan | undefined,
    start: number,
    end: number,
    attributes: OtlpJsonAttribute[] = [],
  ): OtlpJsonSpan => {
    const made: OtlpJsonSpan = {
      traceId,
      spanId: rng.hex(16),
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      name,
      kind: 1,
      startTimeUnixNano: nanos(start),
      endTimeUnixNano: nanos(Math.max(start, end)),
      attributes,
      status: {},
    }
    spans.push(made)
    return made
  }

  const firstLabel = snake(data.agent_name ?? data.agent_id ?? 'agent')
  const root = span('agent_session', undefined, sessionStart, sessionEnd, [
    attribute('lk.agent_label', firstLabel),
    attribute('lk.pii.room_name', `room-${data.session_id}`),
    attribute('lk.job_id', `AJ_${rng.alphanumeric(12)}`),
    attribute('lk.agent_name', data.agent_name ?? ''),
  ])
  if (data.room_metadata?.failed || data.error_message)
    root.status = { code: 2, message: data.error_message ?? 'room failed' }
  let label = firstLabel
  const activate = (time: number) => {
    const activity = span('start_agent_activity', root, time, time + 4, [attribute('lk.agent_label', label)])
    span('on_enter', activity, time + 1, time + 3, [attribute('lk.agent_label', label)])
  }
  activate(sessionStart)

  let context: ContextItem[] = []
  let tools: string[] = []
  let lastUserText: string | undefined
  let toolTurn: { turn: OtlpJsonSpan; llm: OtlpJsonSpan; calls: ContextItem[] } | undefined
  let afterTool = false
  let toolGeneration: string | undefined
  let lastToolEnd = sessionStart

  const agentTurn = (item: HistoryItem | undefined, start: number, end: number) => {
    const generation = `speech_${rng.hex(12)}`
    const attributes = [
      attribute('lk.generation_id', `${generation}_1`),
      attribute('lk.speech_id', generation),
    ]
    if (afterTool && toolGeneration) attributes.push(attribute('lk.parent_generation_id', toolGeneration))
    if (lastUserText !== undefined && !afterTool)
      attributes.push(attribute('lk.pii.user_input', lastUserText))
    const e2e = item?.metrics?.e2e_latency
    // LiveKit measures no e2e latency for the reply after a tool call (docs/otlp.md §3.2)
    if (typeof e2e === 'number' && !afterTool) attributes.push(attribute('lk.e2e_latency', e2e))
    attributes.push(attribute('lk.interrupted', item?.interrupted ?? false))
    if (item) attributes.push(attribute('lk.pii.response.text', item.content ?? ''))
    const turn = span('agent_turn', root, start, end, attributes)
    const ttft = item?.metrics?.llm_node_ttft ?? 0.4
    const llm = span('llm_node', turn, start, start + ttft * 1000 + 250, [
      attribute('lk.pii.chat_ctx', JSON.stringify({ items: context })),
      attribute('lk.function_tools', tools),
      attribute('gen_ai.request.model', 'gpt-4.1-mini'),
      attribute('gen_ai.provider.name', 'openai'),
      attribute('lk.pii.response.text', item?.content ?? ''),
      attribute('lk.pii.response.function_calls', '[]'),
      attribute('lk.response.ttft', ttft),
    ])
    return { turn, llm, ttft, generation: `${generation}_1` }
  }

  for (const item of history) {
    const created = at(item.created_at) ?? sessionStart
    const started = at(item.metrics?.started_speaking_at)
    const stopped = at(item.metrics?.stopped_speaking_at)
    const id = item.id ?? `item_${rng.hex(12)}`
    if (item.kind === 'Message' && item.role === 'System') {
      context.push({
        id: 'lk.agent_task.instructions',
        type: 'message',
        role: 'system',
        content: [item.content ?? ''],
        interrupted: false,
        extra: {},
      })
    } else if (item.kind === 'AgentConfigUpdate') {
      tools = [...new Set([...tools, ...(item.tools_added ?? [])])]
      context.push({
        id,
        type: 'agent_config_update',
        instructions: item.instructions ?? null,
        tools_added: item.tools_added ?? [],
      })
    } else if (item.kind === 'AgentHandoff') {
      const drain = span('drain_agent_activity', root, created, created + 3, [
        attribute('lk.agent_label', label),
      ])
      span('on_exit', drain, created + 1, created + 2, [attribute('lk.agent_label', label)])
      label = item.handoff_to_agent_id ?? `${label}_next`
      activate(created + 4)
      // the new agent's chat context starts afresh (docs/otlp.md §3.5)
      context = []
    } else if (item.kind === 'Message' && item.role === 'User') {
      const speechStart = started ?? created - 1000
      const speechEnd = stopped ?? created
      const turn = span('user_turn', root, speechStart, Math.max(created, speechEnd), [
        attribute('gen_ai.request.model', 'nova-3'),
        attribute('gen_ai.provider.name', 'deepgram'),
        attribute('lk.pii.user_transcript', item.content ?? ''),
        attribute('lk.transcript_confidence', item.transcript_confidence ?? 0),
        attribute('lk.transcription_delay', item.metrics?.transcription_delay ?? 0),
        attribute('lk.end_of_turn_delay', item.metrics?.end_of_turn_delay ?? 0),
      ])
      span('user_speaking', turn, speechStart, speechEnd)
      context.push({
        id,
        type: 'message',
        role: 'user',
        content: [item.content ?? ''],
        interrupted: false,
        transcript_confidence: item.transcript_confidence ?? 0,
        extra: {},
      })
      lastUserText = item.content ?? ''
      afterTool = false
      toolTurn = undefined
    } else if (item.kind === 'Message' && item.role === 'Assistant') {
      const ttft = item.metrics?.llm_node_ttft ?? 0.4
      const ttfb = item.metrics?.tts_node_ttfb ?? 0.2
      const speechStart = started ?? created
      const speechEnd = stopped ?? speechStart + 1000
      // the reply after a tool call starts once the tool returned (its LLM call needs the output)
      const turnStart = Math.max(speechStart - (ttft + ttfb) * 1000, afterTool ? lastToolEnd + 1 : -Infinity)
      const made = agentTurn(item, turnStart, speechEnd)
      span('tts_node', made.turn, turnStart + made.ttft * 1000, speechEnd, [
        attribute('gen_ai.request.model', 'sonic-2'),
        attribute('gen_ai.provider.name', 'cartesia'),
        attribute('lk.response.ttfb', ttfb),
      ])
      span('agent_speaking', made.turn, speechStart, speechEnd)
      context.push({
        id,
        type: 'message',
        role: 'assistant',
        content: [item.content ?? ''],
        interrupted: item.interrupted ?? false,
        extra: {},
      })
      // a tool call right after this reply is asked for by this turn's LLM
      toolTurn = { turn: made.turn, llm: made.llm, calls: [] }
      toolGeneration = made.generation
      afterTool = false
    } else if (item.kind === 'FunctionCall') {
      if (!toolTurn) {
        const made = agentTurn(undefined, created - 400, created + 50)
        toolTurn = { turn: made.turn, llm: made.llm, calls: [] }
        toolGeneration = made.generation
      }
      const call = {
        id: `${id}/fnc_0`,
        type: 'function_call',
        call_id: item.tool_call_id ?? '',
        arguments: item.tool_arguments_json ?? '{}',
        name: item.tool_name ?? '',
        extra: {},
      }
      toolTurn.calls.push(call)
      context.push(call)
      const callsAttribute = toolTurn.llm.attributes.find(
        (entry) => entry.key === 'lk.pii.response.function_calls',
      )!
      callsAttribute.value = { stringValue: JSON.stringify(toolTurn.calls) }
      const output = history.find(
        (candidate) =>
          candidate.kind === 'FunctionCallOutput' && candidate.tool_call_id === item.tool_call_id,
      )
      const outputAt = at(output?.created_at) ?? created + 500
      span('function_tool', toolTurn.turn, created, outputAt, [
        attribute('lk.function_tool.id', item.tool_call_id ?? ''),
        attribute('lk.function_tool.name', item.tool_name ?? ''),
        attribute('lk.pii.function_tool.arguments', item.tool_arguments_json ?? '{}'),
        attribute('lk.pii.function_tool.output', output?.tool_output ?? ''),
        attribute('lk.function_tool.is_error', output?.tool_is_error ?? false),
      ])
      // the turn that asked lasts until its tools returned
      const turnEnd = BigInt(nanos(outputAt))
      if (BigInt(toolTurn.turn.endTimeUnixNano) < turnEnd) toolTurn.turn.endTimeUnixNano = turnEnd.toString()
    } else if (item.kind === 'FunctionCallOutput') {
      context.push({
        id,
        type: 'function_call_output',
        name: item.tool_name ?? '',
        call_id: item.tool_call_id ?? '',
        output: item.tool_output ?? '',
        is_error: item.tool_is_error ?? false,
        reply_required: true,
      })
      afterTool = true
      lastToolEnd = Math.max(lastToolEnd, created)
      toolTurn = undefined
    }
  }
  const drain = span('drain_agent_activity', root, sessionEnd - 6, sessionEnd - 2, [
    attribute('lk.agent_label', label),
  ])
  span('on_exit', drain, sessionEnd - 5, sessionEnd - 3, [attribute('lk.agent_label', label)])

  const resource = [
    attribute('telemetry.sdk.language', 'python'),
    attribute('telemetry.sdk.name', 'opentelemetry'),
    attribute('telemetry.sdk.version', '1.44.0'),
    attribute('service.name', serviceName),
  ]
  return { traceId, resource, spans }
}

/**
 * The requests a BatchSpanProcessor makes of a trace: spans leave as they end, every
 * scheduleDelayMs or when maxBatch have ended, so the root (ending last) is in the last request.
 */
export function exportRequests(
  trace: LivekitTrace,
  options: { scheduleDelayMs?: number; maxBatch?: number } = {},
): OtlpJsonRequest[] {
  const delay = BigInt((options.scheduleDelayMs ?? 5_000) * 1_000_000)
  const maxBatch = options.maxBatch ?? 512
  const byEnd = [...trace.spans].sort((a, b) => {
    const difference = BigInt(a.endTimeUnixNano) - BigInt(b.endTimeUnixNano)
    return difference < 0n ? -1 : difference > 0n ? 1 : 0
  })
  const batches: OtlpJsonSpan[][] = []
  let current: OtlpJsonSpan[] = []
  let windowEnd: bigint | undefined
  for (const span of byEnd) {
    const end = BigInt(span.endTimeUnixNano)
    if (windowEnd === undefined) windowEnd = end + delay
    if (current.length === maxBatch || end > windowEnd) {
      batches.push(current)
      current = []
      windowEnd = end + delay
    }
    current.push(span)
  }
  if (current.length > 0) batches.push(current)
  return batches.map((spans) => ({
    resourceSpans: [
      { resource: { attributes: trace.resource }, scopeSpans: [{ scope: { name: livekitScope }, spans }] },
    ],
  }))
}
