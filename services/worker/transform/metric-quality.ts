// Metric sanity at ingest (#14): which invariants of a history item's metrics do not hold. The
// platform reports impossible values now and then (speech that stops before it starts, delays of
// minutes, e2e latency smaller than its own parts); those values are kept as they came and the
// item is flagged, so dashboards can leave them out of percentiles and a reader can still see them.
// Pure: the rows of one conversation in, one list of flag names per item out. docs/metric-quality.md
// describes every flag and its rule.

/** Every flag, in the order they are checked; each is one rule of docs/metric-quality.md. */
export const metricFlagNames = [
  'speaking_interval_reversed',
  'speaking_outside_conversation',
  'negative_delay',
  'delay_longer_than_conversation',
  'e2e_below_parts',
  'missing_agent_turn_metrics',
  'missing_user_turn_metrics',
] as const
export type MetricFlag = (typeof metricFlagNames)[number]

/** The delays (seconds) each checked for sign and length. */
export const delayMetrics = [
  'e2e_latency',
  'llm_node_ttft',
  'tts_node_ttfb',
  'transcription_delay',
  'end_of_turn_delay',
  'on_user_turn_completed_delay',
] as const
type DelayMetric = (typeof delayMetrics)[number]

/**
 * e2e latency may fall short of end-of-turn + LLM TTFT + TTS TTFB by this much (seconds) before it
 * is flagged: the parts are measured by separate clocks and rounded (in the fixtures e2e exceeds
 * the sum by 1 ms to several seconds, never falls short).
 */
export const e2eTolerance = 0.05

/**
 * Speech may start before the conversation's start or end after its end by this much (ms) before
 * it is flagged: start_time and duration_seconds come from the room, the speaking times from the
 * agent's host, two clocks; and speech cut off by the hang-up can outlast the recorded end a little.
 */
export const spanToleranceMs = 1000

/** What the checks read of an item (a ConversationItemRow has all of it; times in epoch ms). */
export type ItemMetrics = {
  role: string | null
  kind: string | null
  started_speaking_at: number | null
  stopped_speaking_at: number | null
} & { [Name in DelayMetric]: number | null }

/** The conversation the items belong to, as far as it is known. */
export interface ConversationSpan {
  /** Epoch ms: the earliest of start_time and created_at; null when neither is known. */
  startMs: number | null
  /** Epoch ms: start_time (else created_at) + duration_seconds; null when not known. */
  endMs: number | null
  /** Seconds (duration_seconds); null when not known. */
  durationSeconds: number | null
}

const known = (value: number | null): value is number => value !== null

/** The span of a conversation from its start_time, created_at and duration_seconds (ms, ms, s). */
export function conversationSpan(
  startTime: number | null,
  createdAt: number | null,
  durationSeconds: number | null,
): ConversationSpan {
  const starts = [startTime, createdAt].filter(known)
  const from = startTime ?? createdAt
  return {
    startMs: starts.length > 0 ? Math.min(...starts) : null,
    endMs: from !== null && durationSeconds !== null ? from + durationSeconds * 1000 : null,
    durationSeconds,
  }
}

// Whether an item is a message and who speaks it: the checks below and the conversation's turn
// counts (rows/conversation-row.ts) read the same rules. The patterns are built once, not per call.
const messageKind = /^message$/i
const userRole = /^user$/i
const agentRole = /^(assistant|agent)$/i
type Turn = Pick<ItemMetrics, 'role' | 'kind'>
/** A message (no kind, or kind message), not a tool call, output or handoff. */
export const isMessage = (item: Turn) => item.kind === null || messageKind.test(item.kind)
export const isUser = (item: Turn) => item.role !== null && userRole.test(item.role)
export const isAgent = (item: Turn) => item.role !== null && agentRole.test(item.role)

/**
 * The flags of each item, in item order. An agent message answers the user's message when that was
 * the last message before it (tool calls and handoffs may come between); it then must carry
 * e2e_latency, llm_node_ttft and tts_node_ttfb, and its e2e latency includes that user turn's
 * end_of_turn_delay. An agent message that answers nothing (the greeting) has no e2e latency.
 */
export function metricFlags(items: readonly ItemMetrics[], span: ConversationSpan): MetricFlag[][] {
  let lastMessage: ItemMetrics | null = null
  return items.map((item) => {
    const answered = isMessage(item) && isAgent(item) && lastMessage !== null && isUser(lastMessage)
    const flags = itemMetricFlags(item, span, answered ? (lastMessage as ItemMetrics) : null)
    if (isMessage(item) && (isUser(item) || isAgent(item))) lastMessage = item
    return flags
  })
}

// Each flag as a bit (its index in metricFlagNames): an item's flags are gathered in a number and
// become an array only when there is one; the unflagged (most) share one frozen empty array.
const bit = Object.fromEntries(metricFlagNames.map((flag, index) => [flag, 1 << index])) as Record<
  MetricFlag,
  number
>
/** The flags of an unflagged item: one shared array, frozen so that nothing adds to it. */
export const noMetricFlags = Object.freeze([]) as unknown as MetricFlag[]

/** The flags of one item; `answers`: the user message an agent message answers, if any. */
export function itemMetricFlags(
  item: ItemMetrics,
  span: ConversationSpan,
  answers: ItemMetrics | null,
): MetricFlag[] {
  let flags = 0
  const started = item.started_speaking_at
  const stopped = item.stopped_speaking_at
  if (known(started) && known(stopped) && started > stopped) flags |= bit.speaking_interval_reversed

  const outside = (at: number | null) =>
    known(at) &&
    ((span.startMs !== null && at < span.startMs - spanToleranceMs) ||
      (span.endMs !== null && at > span.endMs + spanToleranceMs))
  if (outside(started) || outside(stopped)) flags |= bit.speaking_outside_conversation

  for (const name of delayMetrics) {
    const value = item[name]
    if (!known(value)) continue
    if (value < 0) flags |= bit.negative_delay
    if (span.durationSeconds !== null && value >= span.durationSeconds)
      flags |= bit.delay_longer_than_conversation
  }

  const e2e = item.e2e_latency
  const endOfTurn = answers?.end_of_turn_delay ?? null
  const ttft = item.llm_node_ttft
  const ttfb = item.tts_node_ttfb
  if (known(e2e) && (known(endOfTurn) || known(ttft) || known(ttfb))) {
    const sum = (endOfTurn ?? 0) + (ttft ?? 0) + (ttfb ?? 0)
    if (e2e < sum - e2eTolerance) flags |= bit.e2e_below_parts
  }

  if (isMessage(item) && isAgent(item) && answers !== null) {
    if (!known(item.e2e_latency) || !known(item.llm_node_ttft) || !known(item.tts_node_ttfb))
      flags |= bit.missing_agent_turn_metrics
  }
  if (isMessage(item) && isUser(item)) {
    if (!known(item.transcription_delay) || !known(item.end_of_turn_delay))
      flags |= bit.missing_user_turn_metrics
  }
  return flags === 0 ? noMetricFlags : metricFlagNames.filter((flag) => (flags & bit[flag]) !== 0)
}
