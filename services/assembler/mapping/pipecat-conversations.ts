import type { HistoryItem } from '../../../core/event/conversation-complete.types.ts'
import {
  type AttributeMap,
  booleanAttribute,
  numberAttribute,
  plainAttributeValue,
  stringAttribute,
} from '../../../core/otlp/otlp-attributes.ts'
import type { AssembledConversation, ConversationMapping } from './conversation-mapping.ts'
import { openAiToolCalls } from './openai-tool-calls.ts'
import type { PipecatTable } from './pipecat-mapping-table.ts'
import {
  conversationBounds,
  extraFieldsJson,
  isoMicros,
  orderedHistory,
  originOf,
  rootFailure,
  secondsBetween,
  type TimedItem,
} from './record-fields.ts'
import { traceSessionId } from './session-id.ts'
import { ancestorNamed, type SpanView, type TraceView } from './trace-view.ts'

// Pipecat spans -> ConversationComplete records (docs/otlp.md §4.5), one per `conversation` span.
// A Pipecat turn is one user utterance and the bot's reply: its `stt` spans make the user message,
// each `llm` span with output (or a `tts` after it) an assistant message, tool calls come from the next `llm` span's
// input (OpenAI format). Speaking times are derived (§4.5, question 8): the user's from the STT
// span (VAD-anchored start; end minus its TTFB), the agent's start from the user's stop plus the
// turn's user-bot latency; the agent's stop is not sent.
export const pipecatFramework = 'pipecat'

interface Conversation {
  root: SpanView | null
  spans: SpanView[]
}

export function pipecatMapping(table: PipecatTable): ConversationMapping {
  const scopes = new Set(table.scopes)
  const names = new Set(Object.values(table.spans))
  return {
    id: table.id,
    framework: pipecatFramework,
    versions: table.versions,
    score(trace) {
      let score = 0
      for (const view of trace.spans) {
        if (
          !names.has(view.span.name) ||
          (view.span.scope_name !== null && !scopes.has(view.span.scope_name))
        )
          continue
        // Span names alone are generic (`llm`, `turn`): a Pipecat scope or a Pipecat attribute is needed.
        if (view.span.scope_name !== null || view.attributes.has(table.conversation.id))
          score = Math.max(score, 1)
        for (const key of table.fingerprint) if (view.attributes.has(key)) return 2
      }
      return score
    },
    isRoot: (name, scope) => name === table.spans.conversation && (scope === null || scopes.has(scope)),
    conversations: (trace) =>
      conversationsOf(trace, table).map((conversation) => record(trace, table, conversation)),
  }
}

function conversationsOf(trace: TraceView, table: PipecatTable): Conversation[] {
  const roots = trace.named(table.spans.conversation)
  if (roots.length === 0) return [{ root: null, spans: trace.spans }]
  const conversations = roots.map((root) => ({ root, spans: [] as SpanView[] }))
  const byRoot = new Map(conversations.map((conversation) => [conversation.root.span.span_id, conversation]))
  const rootNames = new Set([table.spans.conversation])
  for (const view of trace.spans) {
    if (view.span.name === table.spans.conversation) continue
    const root = ancestorNamed(trace, view, rootNames)
    let chosen = root ? byRoot.get(root.span.span_id) : undefined
    if (!chosen)
      for (const conversation of conversations)
        if (conversation.root.span.start_time_us <= view.span.start_time_us || !chosen) chosen = conversation
    chosen?.spans.push(view)
  }
  return conversations
}

interface Turn {
  view: SpanView | null
  number: number
  services: SpanView[]
}

/** Each turn with its service spans: by parent, else (parent not received) the turn running then. */
function turnsOf(table: PipecatTable, spans: SpanView[]): Turn[] {
  const turns: Turn[] = spans
    .filter((view) => view.span.name === table.spans.turn)
    .map((view) => ({
      view,
      number: numberAttribute(view.attributes, table.turn.number) ?? 0,
      services: [] as SpanView[],
    }))
    .sort((a, b) => a.number - b.number || a.view!.span.start_time_us - b.view!.span.start_time_us)
  const byId = new Map(turns.map((turn) => [turn.view!.span.span_id, turn]))
  const serviceNames = new Set([table.spans.stt, table.spans.llm, table.spans.tts])
  let orphans: Turn | null = null
  for (const view of spans) {
    if (!serviceNames.has(view.span.name)) continue
    let turn = view.span.parent_span_id ? byId.get(view.span.parent_span_id) : undefined
    if (!turn)
      for (const candidate of turns)
        if (candidate.view!.span.start_time_us <= view.span.start_time_us) turn = candidate
    if (!turn) {
      orphans ??= { view: null, number: 0, services: [] }
      turn = orphans
    }
    turn.services.push(view)
  }
  return orphans ? [orphans, ...turns] : turns
}

function record(trace: TraceView, table: PipecatTable, conversation: Conversation): AssembledConversation {
  const { root, spans } = conversation
  const { startUs, endUs } = conversationBounds(root, spans)
  const rootAttributes: AttributeMap = root?.attributes ?? new Map()
  const conversationId =
    stringAttribute(rootAttributes, table.conversation.id) ??
    spans.map((view) => stringAttribute(view.attributes, table.conversation.id)).find((id) => id !== null) ??
    null
  const sessionId = conversationId ?? traceSessionId(trace.traceId)
  const items: TimedItem[] = []
  const seenCalls = new Set<string>()
  const seenOutputs = new Set<string>()
  let previousLlmEnd: number | null = null
  let systemSeen = false

  for (const turn of turnsOf(table, spans)) {
    const services = turn.services
    const stts = services.filter((view) => view.span.name === table.spans.stt)
    const llms = services.filter((view) => view.span.name === table.spans.llm)
    const ttss = services.filter((view) => view.span.name === table.spans.tts)
    const turnAttributes: AttributeMap = turn.view?.attributes ?? new Map()
    const latency = numberAttribute(turnAttributes, table.turn.userBotLatency)
    let userStoppedUs: number | null = null
    if (stts.length > 0) {
      const last = stts.at(-1)!
      const ttfb = numberAttribute(last.attributes, table.stt.ttfb)
      userStoppedUs = ttfb === null ? null : last.span.end_time_us - ttfb * 1e6
      const transcripts = stts
        .map((view) => stringAttribute(view.attributes, table.stt.transcript))
        .filter((text): text is string => text !== null && text !== '')
      items.push({
        at: stts[0]!.span.start_time_us,
        rank: 0,
        item: {
          role: 'User',
          kind: 'Message',
          content: transcripts.length > 0 ? transcripts.join(' ') : null,
          id: stts[0]!.span.span_id,
          created_at: isoMicros(last.span.end_time_us),
          interrupted: false,
          metrics: {
            started_speaking_at: isoMicros(stts[0]!.span.start_time_us),
            stopped_speaking_at: userStoppedUs === null ? null : isoMicros(userStoppedUs),
            transcription_delay: ttfb,
          },
        },
      })
    }
    const assistants: HistoryItem[] = []
    llms.forEach((llm, index) => {
      const attributes = llm.attributes
      const startUsOfLlm = llm.span.start_time_us
      if (!systemSeen) {
        const instructions = stringAttribute(attributes, table.llm.systemInstructions)
        if (instructions !== null) {
          systemSeen = true
          items.push({
            at: startUs,
            rank: -2,
            item: { role: 'System', kind: 'Message', content: instructions, created_at: isoMicros(startUs) },
          })
        }
      }
      const { calls, outputs } = openAiToolCalls(stringAttribute(attributes, table.llm.input))
      const callAt = previousLlmEnd ?? startUsOfLlm
      for (const call of calls) {
        if (seenCalls.has(call.id)) continue
        seenCalls.add(call.id)
        items.push({
          at: callAt,
          rank: 2,
          item: {
            role: 'Assistant',
            kind: 'FunctionCall',
            created_at: isoMicros(callAt),
            tool_name: call.name,
            tool_call_id: call.id,
            tool_arguments_json: call.arguments,
          },
        })
      }
      for (const output of outputs) {
        if (seenOutputs.has(output.callId)) continue
        seenOutputs.add(output.callId)
        const name = calls.find((call) => call.id === output.callId)?.name ?? null
        items.push({
          at: startUsOfLlm,
          rank: 0.5,
          item: {
            role: 'Tool',
            kind: 'FunctionCallOutput',
            created_at: isoMicros(startUsOfLlm),
            tool_name: name,
            tool_call_id: output.callId,
            tool_output: output.content,
          },
        })
      }
      previousLlmEnd = llm.span.end_time_us
      const output = stringAttribute(attributes, table.llm.output)?.trim() || null
      const nextStart = llms[index + 1]?.span.start_time_us ?? Number.POSITIVE_INFINITY
      const tts = ttss.find(
        (view) => view.span.start_time_us >= startUsOfLlm && view.span.start_time_us < nextStart,
      )
      // A reply: an llm span with output, or one whose words were synthesized (a PII policy that
      // removes `output` keeps the reply and its latencies). A call that only asked for a tool is none.
      if (output === null && !tts) return
      const first = assistants.length === 0
      const agentStartUs =
        first && latency !== null && userStoppedUs !== null ? userStoppedUs + latency * 1e6 : null
      const item: HistoryItem = {
        role: 'Assistant',
        kind: 'Message',
        content: output,
        id: llm.span.span_id,
        created_at: isoMicros(startUsOfLlm),
        interrupted: (tts && booleanAttribute(tts.attributes, table.tts.interrupted)) === true,
        metrics: {
          started_speaking_at: agentStartUs === null ? null : isoMicros(agentStartUs),
          llm_node_ttft: numberAttribute(attributes, table.llm.ttfb),
          tts_node_ttfb: tts ? numberAttribute(tts.attributes, table.tts.ttfb) : null,
          e2e_latency: first ? latency : null,
        },
      }
      assistants.push(item)
      items.push({ at: startUsOfLlm, rank: 1, item })
    })
    // The turn's interruption is its reply's (but a turn the pipeline's end cut off reads interrupted too).
    const last = assistants.at(-1)
    if (
      last &&
      booleanAttribute(turnAttributes, table.turn.wasInterrupted) === true &&
      booleanAttribute(turnAttributes, table.turn.endedByConversationEnd) !== true
    )
      last.interrupted = true
  }

  const serviceName = stringAttribute(trace.resource, 'service.name')
  const used = new Set([table.conversation.id, 'conversation.type', ...Object.values(table.call)])
  const otherAttributes = Object.fromEntries(
    [...rootAttributes.values()]
      .filter((attribute) => !used.has(attribute.key))
      .map((attribute) => [attribute.key, plainAttributeValue(attribute)]),
  )
  const origin = originOf(pipecatFramework, table.id, trace.traceId, trace.resource, root)
  return {
    sessionId,
    complete: root !== null,
    record: {
      event: 'ConversationComplete',
      data: {
        session_id: sessionId,
        agent_id: serviceName,
        agent_name: serviceName,
        created_at: isoMicros(startUs),
        start_time: isoMicros(startUs),
        agent_joined_at: isoMicros(startUs),
        duration_seconds: secondsBetween(startUs, endUs),
        history: orderedHistory(items),
        from_number: stringAttribute(rootAttributes, table.call.fromNumber),
        to_number: stringAttribute(rootAttributes, table.call.toNumber),
        telecom_provider: stringAttribute(rootAttributes, table.call.telecomProvider),
        call_sid: stringAttribute(rootAttributes, table.call.callSid),
        ...rootFailure(root, table.exception.message),
        status: root ? null : 'incomplete',
        extra_fields_json: extraFieldsJson({
          pipecat_conversation_id: conversationId,
          conversation_attributes: Object.keys(otherAttributes).length > 0 ? otherAttributes : null,
        }),
      },
      source: trace.source,
      origin,
    },
  }
}
