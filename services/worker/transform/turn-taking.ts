import { percentileOfSorted } from './latency-percentiles.ts'

// How the conversation went, from who spoke when: talk time per side, silences, barge-ins,
// cut-ins, overlap, the agent's first word and its response gaps (#31). Pure: the worker stores
// what this returns with the conversation; docs/metrics.md defines each figure. Speech the metric
// flags mark impossible (reversed, outside the conversation: metric-quality.ts) is left out before
// it gets here; what only the whole conversation shows is left out here.

export type Side = 'agent' | 'caller'

/** One message's speech: metrics.started_speaking_at / stopped_speaking_at as epoch ms. */
export interface Speech {
  side: Side
  startMs: number
  stopMs: number | undefined
  /** the message's `interrupted`: the agent yielded to the caller */
  interrupted: boolean
  /** the agent message's metrics.e2e_latency in ms, to hold its response gap against */
  e2eLatencyMs?: number | undefined
}

/** When the agent could first speak, each when known: start_time, agent_joined_at. */
export interface CallTimes {
  startMs?: number | undefined
  agentJoinedMs?: number | undefined
}

export interface TurnTakingSettings {
  /** a silence longer than this is dead air (DEAD_AIR_SECONDS) */
  deadAirMs: number
}
export const defaultTurnTaking: TurnTakingSettings = { deadAirMs: 3_000 }

/**
 * A response gap (caller stops -> agent starts, from the speaking times) and the agent message's
 * e2e_latency further apart than this disagree: both measure the same wait, but e2e_latency runs
 * from the end-of-speech detection on the agent's host, which may lag the caller's last word by a
 * few hundred ms (end_of_turn_delay), so only more than half a second says one of them is off.
 */
export const gapE2eMarginMs = 500

/** Why a speech was left out of every figure. */
export interface LeftOut {
  noStop: number
  overlapsItsSide: number
}

export interface TurnTaking {
  agentTalkMs: number
  callerTalkMs: number
  /** agent talk / (agent + caller talk) */
  talkRatio: number
  /** nobody speaks, between the first speech's start and the last speech's stop */
  silenceMs: number
  deadAirCount: number
  longestSilenceMs: number
  /** the caller starts while the agent speaks */
  callerBargeIns: number
  /** of those, the agent's message was `interrupted`: it yielded */
  bargeInsYielded: number
  /** the agent starts while the caller speaks */
  agentCutIns: number
  overlapMs: number
  /** agent_joined_at (else start_time) to the agent's first speech; null without either */
  firstWordMs: number | null
  /** caller stops -> agent starts, for each agent speech that follows a caller speech */
  responseTurns: number
  responseGapP50Ms: number | null
  responseGapP95Ms: number | null
  /** turns whose gap and e2e_latency are more than the margin apart (turns without e2e_latency not counted) */
  gapE2eDisagreements: number
}

interface Interval {
  side: Side
  startMs: number
  stopMs: number
  interrupted: boolean
  e2eLatencyMs: number | undefined
}

/** The figures of one conversation (null when it has no speech that can be measured) and what was left out. */
export function turnTaking(
  speech: readonly Speech[],
  call: CallTimes,
  settings: TurnTakingSettings,
): { figures: TurnTaking | null; leftOut: LeftOut } {
  const { intervals, leftOut } = measurable(speech)
  return { figures: intervals.length === 0 ? null : figuresOf(intervals, call, settings), leftOut }
}

function figuresOf(
  intervals: readonly Interval[],
  call: CallTimes,
  settings: TurnTakingSettings,
): TurnTaking {
  const agent = intervals.filter((interval) => interval.side === 'agent')
  const caller = intervals.filter((interval) => interval.side === 'caller')
  const agentTalkMs = talkMs(agent)
  const callerTalkMs = talkMs(caller)
  const spoken = union(intervals)
  const silences = gaps(spoken)
  const overlapMs = agentTalkMs + callerTalkMs - coveredMs(spoken)
  const bargeIns = caller
    .map((c) => agent.find((a) => a.startMs < c.startMs && c.startMs < a.stopMs))
    .filter((a): a is Interval => a !== undefined)
  const responses = responseGaps(intervals)
  const sortedGaps = responses.map((turn) => turn.gapMs).sort((a, b) => a - b)
  const firstAgent = agent[0]
  const joinedMs = call.agentJoinedMs ?? call.startMs
  return {
    agentTalkMs,
    callerTalkMs,
    talkRatio: agentTalkMs + callerTalkMs === 0 ? 0 : agentTalkMs / (agentTalkMs + callerTalkMs),
    silenceMs: silences.reduce((sum, gap) => sum + gap, 0),
    deadAirCount: silences.filter((gap) => gap > settings.deadAirMs).length,
    longestSilenceMs: Math.max(0, ...silences),
    callerBargeIns: bargeIns.length,
    bargeInsYielded: bargeIns.filter((a) => a.interrupted).length,
    agentCutIns: agent.filter((a) => caller.some((c) => c.startMs < a.startMs && a.startMs < c.stopMs))
      .length,
    overlapMs,
    firstWordMs: firstAgent && joinedMs !== undefined ? firstAgent.startMs - joinedMs : null,
    responseTurns: responses.length,
    responseGapP50Ms: percentileOfSorted(sortedGaps, 0.5),
    responseGapP95Ms: percentileOfSorted(sortedGaps, 0.95),
    gapE2eDisagreements: responses.filter(
      (turn) => turn.e2eLatencyMs !== undefined && Math.abs(turn.gapMs - turn.e2eLatencyMs) > gapE2eMarginMs,
    ).length,
  }
}

/**
 * The speeches that can be measured, in order of start, and why the others were left out: no
 * stop, or starting before the same side's previous speech stopped (one side cannot speak twice
 * at once; the later speech is the one left out).
 */
function measurable(speech: readonly Speech[]): { intervals: Interval[]; leftOut: LeftOut } {
  const leftOut: LeftOut = { noStop: 0, overlapsItsSide: 0 }
  const candidates: Interval[] = []
  for (const s of speech) {
    if (s.stopMs === undefined) leftOut.noStop++
    else
      candidates.push({
        side: s.side,
        startMs: s.startMs,
        stopMs: s.stopMs,
        interrupted: s.interrupted,
        e2eLatencyMs: s.e2eLatencyMs,
      })
  }
  candidates.sort((a, b) => a.startMs - b.startMs || a.stopMs - b.stopMs)
  const lastStop: Record<Side, number> = { agent: -Infinity, caller: -Infinity }
  const intervals: Interval[] = []
  for (const interval of candidates) {
    if (interval.startMs < lastStop[interval.side]) {
      leftOut.overlapsItsSide++
      continue
    }
    lastStop[interval.side] = interval.stopMs
    intervals.push(interval)
  }
  return { intervals, leftOut }
}

/** The union of intervals sorted by start, as disjoint [start, stop] pairs. */
function union(sorted: readonly Interval[]): Array<[number, number]> {
  const merged: Array<[number, number]> = []
  for (const { startMs, stopMs } of sorted) {
    const last = merged.at(-1)
    if (last && startMs <= last[1]) last[1] = Math.max(last[1], stopMs)
    else merged.push([startMs, stopMs])
  }
  return merged
}

/** The time a side speaks: its speeches never overlap each other (measurable keeps it so). */
function talkMs(intervals: readonly Interval[]): number {
  return intervals.reduce((sum, { startMs, stopMs }) => sum + stopMs - startMs, 0)
}

function coveredMs(merged: ReadonlyArray<[number, number]>): number {
  return merged.reduce((sum, [start, stop]) => sum + stop - start, 0)
}

function gaps(merged: ReadonlyArray<[number, number]>): number[] {
  return merged.slice(1).map(([start], i) => start - merged[i]![1])
}

/**
 * A response: an agent speech whose previous speech (by start) is the caller's. Its gap is the
 * agent's start less the caller's stop: negative when the agent started before the caller stopped.
 */
function responseGaps(
  sorted: readonly Interval[],
): Array<{ gapMs: number; e2eLatencyMs: number | undefined }> {
  const turns: Array<{ gapMs: number; e2eLatencyMs: number | undefined }> = []
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1]!
    const current = sorted[i]!
    if (previous.side === 'caller' && current.side === 'agent')
      turns.push({ gapMs: current.startMs - previous.stopMs, e2eLatencyMs: current.e2eLatencyMs })
  }
  return turns
}
