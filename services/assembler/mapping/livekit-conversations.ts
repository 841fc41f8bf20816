import type { HistoryItem } from '../../../core/event/conversation-complete.types.ts'
import {
  type AttributeMap,
  booleanAttribute,
  numberAttribute,
  stringAttribute,
} from '../../../core/otlp/otlp-attributes.ts'
import type { AssembledConversation, ConversationMapping } from './conversation-mapping.ts'
import type { LiveKitTable } from './livekit-mapping-table.ts'
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
import { rootSessionId, traceSessionId } from './session-id.ts'
import { ancestorNamed, type SpanView, type TraceView } from './trace-view.ts'

// LiveKit Agents spans -> ConversationComplete records (docs/otlp.md §3.5), one per agent_session
// span, with the names of a version range's table. Spans reach their session by their parent chain;
// one whose chain is broken (its parent not received) by time. Without an agent_session (emitted
// after the idle time) the whole trace is one incomplete conversation.
export const livekitFramework = 'livekit-agents'

interface Session {
  root: SpanView | null
  sessionId: string
  spans: SpanView[]
}

export function livekitMapping(table: LiveKitTable): ConversationMapping {
  const agentTurns = new Set(table.spans.agentTurns)
  const known = new Set([
    table.spans.session,
    table.spans.userTurn,
    ...table.spans.agentTurns,
    table.spans.llmNode,
    table.spans.functionTool,
  ])
  return {
    id: table.id,
    framework: livekitFramework,
    versions: table.versions,
    score(trace) {
      let score = 0
      for (const view of trace.spans) {
        if (view.span.scope_name === table.scope) score = Math.max(score, 1)
        else if (!known.has(view.span.name)) continue
        if (known.has(view.span.name)) score = Math.max(score, 1)
        for (const key of table.fingerprint) if (view.attributes.has(key)) return 2
      }
      return score
    },
    isRoot: (name) => name === table.spans.session,
    conversations: (trace) =>
      sessionsOf(trace, table).map((session) => conversation(trace, table, session, agentTurns)),
  }
}

function sessionsOf(trace: TraceView, table: LiveKitTable): Session[] {
  const roots = trace.named(table.spans.session)
  if (roots.length === 0)
    return [{ root: null, sessionId: traceSessionId(trace.traceId), spans: trace.spans }]
  const sessions = roots.map((root, index) => ({
    root,
    sessionId: index === 0 ? traceSessionId(trace.traceId) : rootSessionId(trace.traceId, root.span.span_id),
    spans: [] as SpanView[],
  }))
  const byRoot = new Map(sessions.map((session) => [session.root.span.span_id, session]))
  const rootNames = new Set([table.spans.session])
  for (const view of trace.spans) {
    if (view.span.name === table.spans.session) continue
    const root = ancestorNamed(trace, view, rootNames)
    const session = root ? byRoot.get(root.span.span_id) : sessionAt(sessions, view.span.start_time_us)
    session?.spans.push(view)
  }
  return sessions
}

/** The session running at `us`, else the last one started before it, else the first. */
function sessionAt(sessions: (Session & { root: SpanView })[], us: number): Session | undefined {
  let chosen: Session | undefined = sessions[0]
  for (const session of sessions) if (session.root.span.start_time_us <= us) chosen = session
  return chosen
}

function conversation(
  trace: TraceView,
  table: LiveKitTable,
  session: Session,
  agentTurns: ReadonlySet<string>,
): AssembledConversation {
  const { root, spans } = session
  const { startUs, endUs } = conversationBounds(root, spans)
  const rootAttributes: AttributeMap = root?.attributes ?? new Map()
  const number = (attributes: AttributeMap, key: string | null) => {
    const value = numberAttribute(attributes, key)
    return value === 0 && key !== null && table.zeroMeansAbsent.includes(key) ? null : value
  }
  const items: TimedItem[] = []
  let callerKind: string | null = null
  const children = (view: SpanView, name: string) =>
    trace.childrenOf(view.span.span_id).filter((child) => child.span.name === name)

  // The agent's instructions and configuration, from the chat context the LLM was given.
  let systemSeen = false
  const configSeen = new Set<string>()
  for (const node of spans.filter((view) => view.span.name === table.spans.llmNode)) {
    for (const entry of chatContextItems(stringAttribute(node.attributes, table.llmNode.chatContext))) {
      if (
        !systemSeen &&
        entry.type === 'message' &&
        (entry.role === 'system' || entry.role === 'developer')
      ) {
        systemSeen = true
        items.push({
          at: startUs,
          rank: -2,
          item: {
            role: 'System',
            kind: 'Message',
            content: textOf(entry.content),
            id: entry.id ?? null,
            created_at: isoMicros(startUs),
          },
        })
      }
      if (entry.type === 'agent_config_update' && entry.id && !configSeen.has(entry.id)) {
        configSeen.add(entry.id)
        // Before the reply whose LLM call first showed it: at that agent turn's start.
        const parent = node.span.parent_span_id ? trace.byId.get(node.span.parent_span_id) : undefined
        const at = Math.min(node.span.start_time_us, parent?.span.start_time_us ?? Number.POSITIVE_INFINITY)
        items.push({
          at,
          rank: -1,
          item: {
            role: 'System',
            kind: 'AgentConfigUpdate',
            id: entry.id,
            created_at: isoMicros(at),
            instructions: typeof entry.instructions === 'string' ? entry.instructions : null,
            tools_added: Array.isArray(entry.tools_added)
              ? entry.tools_added.filter((tool) => typeof tool === 'string')
              : null,
          },
        })
      }
    }
  }

  // A text session (no STT, no VAD: text input only) has no user_turn spans; what the user said is
  // then only its reply's lk.pii.user_input, which becomes the user message, without speech metrics.
  const textSession = !spans.some((view) => view.span.name === table.spans.userTurn)
  for (const view of spans) {
    const { span, attributes } = view
    if (textSession && agentTurns.has(span.name)) {
      const said = stringAttribute(attributes, table.agentTurn.userInput)
      if (said !== null)
        items.push(userMessage(span.start_time_us, `${span.span_id}/user_input`, span.start_time_us, said))
    }
    if (span.name === table.spans.userTurn) {
      const speaking = children(view, table.spans.userSpeaking)
      callerKind ??= stringAttribute(attributes, table.userTurn.participantKind)
      items.push(
        userMessage(
          span.start_time_us,
          span.span_id,
          span.end_time_us,
          stringAttribute(attributes, table.userTurn.transcript),
          {
            transcript_confidence: number(attributes, table.userTurn.confidence),
            metrics: {
              started_speaking_at: isoMicros(speaking[0]?.span.start_time_us ?? span.start_time_us),
              stopped_speaking_at: speaking.length > 0 ? isoMicros(speaking.at(-1)!.span.end_time_us) : null,
              transcription_delay: number(attributes, table.userTurn.transcriptionDelay),
              end_of_turn_delay: number(attributes, table.userTurn.endOfTurnDelay),
            },
          },
        ),
      )
    } else if (agentTurns.has(span.name)) {
      const text = stringAttribute(attributes, table.agentTurn.text)
      const speaking = children(view, table.spans.agentSpeaking)[0]
      if (text === null && !speaking) continue // a turn that only called a tool said nothing
      const llm = children(view, table.spans.llmNode)[0]
      const tts = children(view, table.spans.ttsNode)[0]
      items.push({
        at: span.start_time_us,
        rank: 1,
        item: {
          role: 'Assistant',
          kind: 'Message',
          content: text,
          id:
            stringAttribute(attributes, table.agentTurn.generationId) ??
            stringAttribute(attributes, table.agentTurn.speechId) ??
            span.span_id,
          created_at: isoMicros(span.start_time_us),
          interrupted: booleanAttribute(attributes, table.agentTurn.interrupted) ?? false,
          metrics: {
            started_speaking_at: speaking ? isoMicros(speaking.span.start_time_us) : null,
            stopped_speaking_at: speaking ? isoMicros(speaking.span.end_time_us) : null,
            e2e_latency: number(attributes, table.agentTurn.e2eLatency),
            llm_node_ttft: llm ? number(llm.attributes, table.llmNode.ttft) : null,
            tts_node_ttfb: tts ? number(tts.attributes, table.ttsNode.ttfb) : null,
            on_user_turn_completed_delay: number(attributes, table.agentTurn.onUserTurnCompletedDelay),
          },
        },
      })
    } else if (span.name === table.spans.functionTool) {
      const tool = table.functionTool
      const common = {
        tool_name: stringAttribute(attributes, tool.name),
        tool_call_id: stringAttribute(attributes, tool.id) ?? span.span_id,
      }
      items.push({
        at: span.start_time_us,
        rank: 2,
        item: {
          role: 'Assistant',
          kind: 'FunctionCall',
          id: `${span.span_id}/call`,
          created_at: isoMicros(span.start_time_us),
          ...common,
          tool_arguments_json: stringAttribute(attributes, tool.arguments),
        },
      })
      items.push({
        at: span.end_time_us,
        rank: 3,
        item: {
          role: 'Tool',
          kind: 'FunctionCallOutput',
          id: `${span.span_id}/output`,
          created_at: isoMicros(span.end_time_us),
          ...common,
          tool_output: stringAttribute(attributes, tool.output),
          tool_is_error: booleanAttribute(attributes, tool.isError) ?? span.status_code === 2,
        },
      })
    }
  }

  // Handoffs: an agent activity of another agent than the active one.
  let active: string | null = null
  for (const view of spans.filter((candidate) => candidate.span.name === table.spans.agentActivity)) {
    const label = stringAttribute(view.attributes, table.activity.agentLabel)
    if (label === null) continue
    if (active !== null && label !== active)
      items.push({
        at: view.span.start_time_us,
        rank: -1,
        item: {
          role: 'System',
          kind: 'AgentHandoff',
          id: view.span.span_id,
          created_at: isoMicros(view.span.start_time_us),
          handoff_to_agent_id: label,
        },
      })
    active = label
  }

  const agentName = nonEmpty(stringAttribute(rootAttributes, table.session.agentName))
  const origin = originOf(livekitFramework, table.id, trace.traceId, trace.resource, root)
  const history: HistoryItem[] = orderedHistory(items)
  return {
    sessionId: session.sessionId,
    complete: root !== null,
    record: {
      event: 'ConversationComplete',
      data: {
        session_id: session.sessionId,
        agent_id: agentName ?? stringAttribute(trace.resource, 'service.name'),
        agent_name: agentName ?? stringAttribute(rootAttributes, table.session.agentLabel),
        created_at: isoMicros(startUs),
        start_time: isoMicros(startUs),
        agent_joined_at: isoMicros(startUs),
        duration_seconds: secondsBetween(startUs, endUs),
        history,
        ...rootFailure(root, table.exception.message),
        status: root ? null : 'incomplete',
        extra_fields_json: extraFieldsJson({
          livekit_job_id: stringAttribute(rootAttributes, table.session.jobId),
          livekit_room_name: stringAttribute(rootAttributes, table.session.roomName),
          caller_kind: callerKind,
        }),
      },
      source: trace.source,
      origin,
    },
  }
}

/** A user message ordered by `atUs` (before the reply it starts), created at `createdUs`. */
function userMessage(
  atUs: number,
  id: string,
  createdUs: number,
  content: string | null,
  more: Partial<HistoryItem> = {},
): TimedItem {
  const item: HistoryItem = {
    role: 'User',
    kind: 'Message',
    content,
    id,
    created_at: isoMicros(createdUs),
    interrupted: false,
  }
  return { at: atUs, rank: 0, item: { ...item, ...more } }
}

const nonEmpty = (value: string | null): string | null => (value === null || value === '' ? null : value)

interface ChatContextItem {
  id?: string
  type?: string
  role?: string
  content?: unknown
  instructions?: unknown
  tools_added?: unknown[]
}

/** The items of a serialized chat context (`{"items": [...]}`); none when absent or unreadable. */
function chatContextItems(json: string | null): ChatContextItem[] {
  if (json === null) return []
  try {
    const parsed = JSON.parse(json) as { items?: unknown }
    return Array.isArray(parsed.items) ? (parsed.items as ChatContextItem[]) : []
  } catch {
    return []
  }
}

function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    const texts = content.filter((part): part is string => typeof part === 'string')
    return texts.length > 0 ? texts.join('\n') : null
  }
  return null
}
