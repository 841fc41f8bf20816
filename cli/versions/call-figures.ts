import {
  type Estimate,
  meanEstimate,
  proportionEstimate,
  quantileEstimate,
  ratioEstimate,
} from './interval-estimates.ts'

// The figures compared before and after a version change (#32), each from one value per
// conversation (the unit of interval-estimates.ts) with its interval and its number of calls.
// Latency: the conversations' own percentiles of their turns (conversations.e2e_latency_p50, ...),
// and the figure is the median call's: "e2e p95" is the p95 of the median call, not of all turns,
// because the intervals need independent values and the turns of one call are not. Pure.

/** One conversation's values (conversations, with its cost from conversation_costs). */
export interface CallValues {
  e2eP50: number | null
  e2eP95: number | null
  ttftP50: number | null
  ttfbP50: number | null
  /** room_failed, as the failed-room rate of the dashboards and alerts. */
  failed: boolean
  testSuccess: boolean | null
  /** NULL without measurable speech (turn-taking, migration 0018). */
  deadAirCount: number | null
  callerBargeIns: number | null
  agentTurns: number
  /** NULL when a price is missing (conversation_costs). */
  cost: number | null
}

export const figureNames = [
  'e2e_latency_p50_s',
  'e2e_latency_p95_s',
  'llm_ttft_p50_s',
  'tts_ttfb_p50_s',
  'failed_room_rate',
  'test_pass_rate',
  'cost_per_call',
  'dead_air_call_rate',
  'barge_ins_per_agent_turn',
] as const
export type FigureName = (typeof figureNames)[number]
export type CallFigures = Record<FigureName, Estimate>

const present = (values: ReadonlyArray<number | null>) => values.filter((value) => value !== null)

export function callFigures(calls: readonly CallValues[]): CallFigures {
  const tests = calls.filter((call) => call.testSuccess !== null)
  const speech = calls.filter((call) => call.deadAirCount !== null)
  const bargeIns = calls.filter((call) => call.callerBargeIns !== null)
  return {
    e2e_latency_p50_s: quantileEstimate(present(calls.map((call) => call.e2eP50)), 0.5),
    e2e_latency_p95_s: quantileEstimate(present(calls.map((call) => call.e2eP95)), 0.5),
    llm_ttft_p50_s: quantileEstimate(present(calls.map((call) => call.ttftP50)), 0.5),
    tts_ttfb_p50_s: quantileEstimate(present(calls.map((call) => call.ttfbP50)), 0.5),
    failed_room_rate: proportionEstimate(calls.filter((call) => call.failed).length, calls.length),
    test_pass_rate: proportionEstimate(tests.filter((call) => call.testSuccess).length, tests.length),
    cost_per_call: meanEstimate(present(calls.map((call) => call.cost))),
    dead_air_call_rate: proportionEstimate(
      speech.filter((call) => call.deadAirCount! > 0).length,
      speech.length,
    ),
    barge_ins_per_agent_turn: ratioEstimate(
      bargeIns.map((call) => call.callerBargeIns!),
      bargeIns.map((call) => call.agentTurns),
    ),
  }
}
