import type { HistoryItem, ItemMetrics } from '../core/event/conversation-complete.types.ts'
import type { ToolScript } from './conversation-scripts.ts'
import {
  assistantFollowUps,
  assistantOpeners,
  conversationFlow,
  toolFillers,
  userOpeners,
  voiceGuidelines,
} from './conversation-scripts.ts'
import type { Random } from './random.ts'
import type { SyntheticAgent } from './synthetic-world.ts'
import type { TimestampStyle } from './timestamp-format.ts'
import { formatTimestamp } from './timestamp-format.ts'

// The history of one synthetic conversation on a consistent timeline: a user turn ends, the
// end-of-turn detector fires, the LLM answers (maybe after tool calls), the TTS speaks. Metrics
// follow LiveKit-style agents: user turns carry transcription/end-of-turn delays, agent turns
// LLM time to first token, TTS time to first byte and end-to-end latency, all in seconds.
export interface HistorySettings {
  /** Exactly this many items. */
  length: number
  toolCallRate: number
  toolErrorRate: number
  handoffRate: number
  interruptionRate: number
}

export interface History {
  items: HistoryItem[]
  /** Epoch ms of the last thing that happened. */
  endedAt: number
}

interface Latencies {
  ttft(): number
  ttfb(): number
  transcription(): number
  endOfTurn(): number
  onUserTurnCompleted(): number
}

// Log-normal with a rare heavy tail (cold starts, retries, a slow TTS voice), unrounded as agents
// report them.
function latencies(rng: Random, scale: number): Latencies {
  const draw = (median: number, sigma: number, min: number) => () => {
    const tail = rng.chance(0.04) ? rng.float(1.5, 3) : 1
    return Math.max(min, rng.logNormal(median * scale, sigma) * tail)
  }
  return {
    ttft: draw(0.42, 0.38, 0.12),
    ttfb: draw(0.19, 0.35, 0.05),
    transcription: draw(0.14, 0.45, 0.02),
    endOfTurn: draw(0.42, 0.3, 0.15),
    onUserTurnCompleted: () => Math.min(0.2, rng.logNormal(0.008, 0.9)),
  }
}

interface Timeline {
  rng: Random
  settings: HistorySettings
  agent: SyntheticAgent
  style: TimestampStyle
  latency: Latencies
  items: HistoryItem[]
  /** Epoch ms of the latest event so far. */
  now: number
  lastAgentStoppedAt: number
  lastAgentInterrupted: boolean
  /** the caller's last message, whose stop moves when the agent cut in on a pause */
  lastUser: HistoryItem | undefined
}

// How real calls go wrong between turns (rates per turn). A caller looking something up leaves
// seconds of silence; an end-of-turn detector firing on a pause starts the agent while the caller
// goes on (a cut-in, the agent's e2e_latency counted from the pause); e2e_latency runs on the
// agent's host, a few tens of ms off the speaking times.
const callerLooksUpRate = 0.005
const agentCutInRate = 0.03
/** Most agents say a filler before a tool runs; the rest leave the caller waiting in silence. */
const toolFillerRate = 0.92
const e2eJitterSeconds = 0.04

const wordsPerSecond = 2.6
const speechSeconds = (rng: Random, text: string): number =>
  (text.split(/\s+/).length / wordsPerSecond) * rng.logNormal(1, 0.12)
const time = (timeline: Timeline, epochMs: number): string => formatTimestamp(epochMs, timeline.style)
const itemId = (rng: Random): string => `item_${rng.hex(12)}`
/** Agents like to acknowledge first and add a second sentence. */
function agentLine(rng: Random, line: string): string {
  const opener = rng.chance(0.5) ? `${rng.pick(assistantOpeners)} ` : ''
  const followUp = rng.chance(0.6) ? ` ${rng.pick(assistantFollowUps)}` : ''
  return `${opener}${line}${followUp}`
}
/** Speech-to-text keeps the caller's fillers. */
const userLine = (rng: Random, line: string): string =>
  rng.chance(0.35) ? `${rng.pick(userOpeners)} ${line.charAt(0).toLowerCase()}${line.slice(1)}` : line

function pushSystem(timeline: Timeline, promptContext: string): void {
  timeline.now += timeline.rng.float(5, 30)
  timeline.items.push({
    role: 'System',
    content: [
      timeline.agent.domain.systemPrompt,
      timeline.agent.domain.facts,
      conversationFlow,
      voiceGuidelines,
      promptContext,
    ].join('\n\n'),
    kind: 'Message',
    id: itemId(timeline.rng),
    created_at: time(timeline, timeline.now),
  })
}

/**
 * An agent turn; userStoppedAt is where its end-to-end latency counts from (none for the greeting).
 * Returns when the agent started speaking.
 */
function pushAgent(timeline: Timeline, text: string, userStoppedAt: number | undefined): number {
  const { rng, latency } = timeline
  // A version change's effect slows every answer by the same seconds (agent-versions.ts).
  const ttft = latency.ttft() + (timeline.agent.addedLatencySeconds ?? 0)
  const ttfb = latency.ttfb()
  // Speech queues behind the agent's previous speech (a filler spoken while a tool ran).
  const startedAt = Math.max(timeline.now + (ttft + ttfb) * 1000, timeline.lastAgentStoppedAt + 150)
  const caller = timeline.lastUser?.metrics
  // Drawn for every turn, so that a slower agent (agent-versions.ts) gets the same draws after it.
  const cutInDrawn = rng.chance(agentCutInRate)
  const cutIn =
    cutInDrawn && userStoppedAt !== undefined && caller !== undefined && startedAt - userStoppedAt < 2_000
  const interrupted = !cutIn && userStoppedAt !== undefined && rng.chance(timeline.settings.interruptionRate)
  let content = text
  let spoken = speechSeconds(rng, text)
  if (interrupted) {
    // The transcript of an interrupted turn ends where the user cut in.
    const words = text.split(' ')
    content = words.slice(0, Math.max(2, Math.floor(words.length * rng.float(0.3, 0.7)))).join(' ')
    spoken = speechSeconds(rng, content) + rng.float(0.1, 0.3)
  }
  const stoppedAt = startedAt + spoken * 1000
  const metrics: ItemMetrics = {
    started_speaking_at: time(timeline, startedAt),
    stopped_speaking_at: time(timeline, stoppedAt),
    llm_node_ttft: ttft,
    tts_node_ttfb: ttfb,
  }
  if (userStoppedAt !== undefined)
    metrics.e2e_latency = Math.max(
      0.05,
      (startedAt - userStoppedAt) / 1000 + rng.float(-e2eJitterSeconds, e2eJitterSeconds),
    )
  if (cutIn && caller)
    caller.stopped_speaking_at = time(timeline, Math.min(startedAt + rng.float(200, 1_200), stoppedAt))
  timeline.items.push({
    role: 'Assistant',
    content,
    kind: 'Message',
    id: itemId(rng),
    created_at: time(timeline, startedAt),
    interrupted,
    metrics,
  })
  timeline.now = stoppedAt
  timeline.lastAgentStoppedAt = stoppedAt
  timeline.lastAgentInterrupted = interrupted
  return startedAt
}

/** A user turn; returns when the user stopped speaking. */
function pushUser(timeline: Timeline, text: string): number {
  const { rng, latency } = timeline
  const startedAt = timeline.lastAgentInterrupted
    ? timeline.lastAgentStoppedAt - rng.float(150, 400) // the barge-in that stopped the agent
    : timeline.now + (rng.chance(callerLooksUpRate) ? rng.float(3.5, 12) : rng.logNormal(0.6, 0.5)) * 1000
  const stoppedAt = startedAt + speechSeconds(rng, text) * 1000
  const endOfTurn = latency.endOfTurn()
  const onUserTurnCompleted = latency.onUserTurnCompleted()
  const createdAt = stoppedAt + endOfTurn * 1000
  const item: HistoryItem = {
    role: 'User',
    content: text,
    kind: 'Message',
    id: itemId(rng),
    created_at: time(timeline, createdAt),
    interrupted: false,
    transcript_confidence: Math.max(0.35, Math.min(0.999, 1 - rng.logNormal(0.05, 0.7))),
    metrics: {
      started_speaking_at: time(timeline, startedAt),
      stopped_speaking_at: time(timeline, stoppedAt),
      transcription_delay: latency.transcription(),
      end_of_turn_delay: endOfTurn,
      on_user_turn_completed_delay: onUserTurnCompleted,
    },
  }
  timeline.items.push(item)
  timeline.lastUser = item
  timeline.now = createdAt + onUserTurnCompleted * 1000
  timeline.lastAgentInterrupted = false
  return stoppedAt
}

/** Tool calls the model makes at once, then their outputs, paired by tool_call_id. */
function pushToolCalls(timeline: Timeline, tools: ToolScript[]): void {
  const { rng, latency } = timeline
  timeline.now += latency.ttft() * 1000
  const callIds = tools.map((tool) => {
    const callId = `call_${rng.alphanumeric(24)}`
    timeline.items.push({
      role: 'Assistant',
      kind: 'FunctionCall',
      id: itemId(rng),
      created_at: time(timeline, timeline.now),
      tool_name: tool.name,
      tool_call_id: callId,
      tool_arguments_json: JSON.stringify(tool.arguments(rng)),
    })
    timeline.now += rng.float(0.5, 3)
    return callId
  })
  tools.forEach((tool, index) => {
    timeline.now += rng.logNormal(0.35, 0.8) * 1000
    const isError = rng.chance(timeline.settings.toolErrorRate)
    timeline.items.push({
      role: 'Tool',
      kind: 'FunctionCallOutput',
      id: itemId(rng),
      created_at: time(timeline, timeline.now),
      tool_name: tool.name,
      tool_call_id: callIds[index]!,
      tool_output: isError ? rng.pick(tool.errors) : JSON.stringify(tool.output(rng)),
      tool_is_error: isError,
    })
  })
}

function pushConfigUpdate(timeline: Timeline, instructions: string, toolsAdded: string[]): void {
  timeline.now += timeline.rng.float(2, 15)
  timeline.items.push({
    role: 'System',
    kind: 'AgentConfigUpdate',
    id: itemId(timeline.rng),
    created_at: time(timeline, timeline.now),
    instructions,
    tools_added: toolsAdded,
  })
}

function pushHandoff(timeline: Timeline): void {
  const { rng, agent } = timeline
  timeline.now += timeline.latency.ttft() * 1000
  timeline.items.push({
    role: 'System',
    kind: 'AgentHandoff',
    id: itemId(rng),
    created_at: time(timeline, timeline.now),
    handoff_to_agent_id: agent.specialistId,
  })
  timeline.now += rng.float(20, 120)
  pushConfigUpdate(timeline, agent.domain.specialist.instructions, [...agent.domain.specialist.tools])
}

const verifiedInstructions =
  'The caller is verified. You may now discuss account details, amounts and personal data with them.'

/**
 * Exactly settings.length items, starting after the agent joined. Tool calls, handoffs and config
 * updates start only where they fit whole, so every call has its output and an answer.
 */
export function buildHistory(
  rng: Random,
  agent: SyntheticAgent,
  style: TimestampStyle,
  joinedAt: number,
  settings: HistorySettings,
  promptContext: string,
): History {
  const timeline: Timeline = {
    rng,
    settings,
    agent,
    style,
    latency: latencies(rng, agent.latencyScale),
    items: [],
    now: joinedAt,
    lastAgentStoppedAt: joinedAt,
    lastAgentInterrupted: false,
    lastUser: undefined,
  }
  const domain = agent.domain
  const remaining = () => settings.length - timeline.items.length
  if (remaining() > 0) pushSystem(timeline, promptContext)
  if (remaining() > 0) {
    timeline.now += rng.float(300, 1000)
    pushAgent(timeline, rng.pick(domain.greetings), undefined)
  }
  let handoffPending = rng.chance(settings.handoffRate)
  let configUpdatePending = rng.chance(0.2)
  while (remaining() > 0) {
    const line = rng.pick(remaining() <= 2 ? domain.userClosings : domain.userLines)
    const userStoppedAt = pushUser(timeline, userLine(rng, line))
    const left = remaining()
    if (left === 0) break
    if (handoffPending && left >= 3 && timeline.items.length >= settings.length / 3) {
      handoffPending = false
      pushHandoff(timeline)
      pushAgent(timeline, domain.specialist.greeting, userStoppedAt)
    } else if (left >= 3 && rng.chance(settings.toolCallRate)) {
      const parallel = left >= 5 && rng.chance(0.15) ? 2 : 1
      // A filler answers the caller's turn; the answer after the tool then answers no turn of its own.
      const filler = left >= 2 * parallel + 2 && rng.chance(toolFillerRate)
      if (filler) {
        // The tool runs while the filler is spoken.
        timeline.now = pushAgent(timeline, rng.pick(toolFillers), userStoppedAt)
      }
      pushToolCalls(
        timeline,
        Array.from({ length: parallel }, () => rng.pick(domain.tools)),
      )
      pushAgent(timeline, agentLine(rng, rng.pick(domain.afterToolLines)), filler ? undefined : userStoppedAt)
    } else if (configUpdatePending && left >= 2 && timeline.items.length >= 6) {
      configUpdatePending = false
      pushConfigUpdate(timeline, verifiedInstructions, [domain.tools[domain.tools.length - 1]!.name])
      pushAgent(timeline, agentLine(rng, rng.pick(domain.assistantLines)), userStoppedAt)
    } else {
      const line =
        left === 1 ? rng.pick(domain.assistantClosings) : agentLine(rng, rng.pick(domain.assistantLines))
      pushAgent(timeline, line, userStoppedAt)
    }
  }
  return { items: timeline.items, endedAt: timeline.now }
}
