import { describe, expect, it } from 'vitest'
import { type Side, type Speech, type TurnTaking, turnTaking } from './turn-taking.ts'

const settings = { deadAirMs: 3_000 }
const agent = (startMs: number, stopMs: number | undefined, extra: Partial<Speech> = {}): Speech => ({
  side: 'agent',
  startMs,
  stopMs,
  interrupted: false,
  ...extra,
})
const caller = (startMs: number, stopMs: number | undefined): Speech => ({
  side: 'caller',
  startMs,
  stopMs,
  interrupted: false,
})
const noneLeftOut = { noStop: 0, overlapsItsSide: 0 }

describe('turnTaking, worked out by hand', () => {
  it('a barge-in yielded to, one not, a cut-in, back-to-back agent speech and dead air', () => {
    const speech = [
      agent(1_000, 4_000, { interrupted: true }),
      caller(3_500, 6_000), // barge-in, the agent yielded: overlap 500
      agent(6_800, 9_000, { e2eLatencyMs: 700 }), // response, gap 800, agrees with 700 within 500
      agent(12_500, 13_000), // after 3,500 ms of silence: dead air; not a response (agent after agent)
      caller(12_800, 14_000), // barge-in, not yielded: overlap 200
      agent(13_500, 15_000, { e2eLatencyMs: 1_200 }), // cut-in, response gap -500: disagrees with 1,200
    ]
    expect(turnTaking(speech, { startMs: 0, agentJoinedMs: 500 }, settings)).toEqual({
      figures: {
        agentTalkMs: 3_000 + 2_200 + 500 + 1_500,
        callerTalkMs: 2_500 + 1_200,
        talkRatio: 7_200 / 10_900,
        silenceMs: 800 + 3_500,
        deadAirCount: 1,
        longestSilenceMs: 3_500,
        callerBargeIns: 2,
        bargeInsYielded: 1,
        agentCutIns: 1,
        overlapMs: 500 + 200 + 500,
        firstWordMs: 500,
        responseTurns: 2,
        responseGapP50Ms: 150,
        responseGapP95Ms: -500 + 1_300 * 0.95,
        gapE2eDisagreements: 1,
      } satisfies TurnTaking,
      leftOut: noneLeftOut,
    })
  })

  it('a caller who never speaks: all talk is the agent, no barge-ins, no responses', () => {
    const { figures } = turnTaking([agent(1_000, 2_000), agent(2_500, 3_000)], { startMs: 200 }, settings)
    expect(figures).toMatchObject({
      agentTalkMs: 1_500,
      callerTalkMs: 0,
      talkRatio: 1,
      silenceMs: 500,
      deadAirCount: 0,
      callerBargeIns: 0,
      agentCutIns: 0,
      overlapMs: 0,
      firstWordMs: 800,
      responseTurns: 0,
      responseGapP50Ms: null,
      responseGapP95Ms: null,
    })
  })

  it('leaves out speech without a stop, and speech that starts while its side still speaks', () => {
    const speech = [
      agent(1_000, 3_000),
      agent(2_000, 4_000), // starts while the agent still speaks: left out
      caller(3_000, undefined), // no stop
      caller(5_000, 6_000),
    ]
    expect(turnTaking(speech, { startMs: 0 }, settings)).toMatchObject({
      figures: { agentTalkMs: 2_000, callerTalkMs: 1_000, silenceMs: 2_000, responseTurns: 0 },
      leftOut: { noStop: 1, overlapsItsSide: 1 },
    })
  })

  it('is null without measurable speech, never zeros', () => {
    expect(turnTaking([], {}, settings)).toEqual({ figures: null, leftOut: noneLeftOut })
    expect(turnTaking([caller(1_000, undefined)], {}, settings)).toEqual({
      figures: null,
      leftOut: { ...noneLeftOut, noStop: 1 },
    })
  })

  it('takes start_time without agent_joined_at, and has no first word without either', () => {
    expect(turnTaking([agent(1_000, 2_000)], { startMs: 400 }, settings).figures?.firstWordMs).toBe(600)
    expect(turnTaking([agent(1_000, 2_000)], {}, settings).figures?.firstWordMs).toBeNull()
    expect(turnTaking([caller(1_000, 2_000)], { startMs: 0 }, settings).figures?.firstWordMs).toBeNull()
  })

  it('counts a silence exactly at the threshold as no dead air, one a millisecond longer as dead air', () => {
    const at = turnTaking([agent(0, 1_000), caller(4_000, 5_000)], {}, settings).figures!
    const over = turnTaking([agent(0, 1_000), caller(4_001, 5_000)], {}, settings).figures!
    expect([at.deadAirCount, over.deadAirCount]).toEqual([0, 1])
  })
})

// A brute-force reference: who speaks at each millisecond, on random conversations whose speech
// is all measurable (the rules for leaving speech out are the hand cases above).
describe('turnTaking against a millisecond-by-millisecond reference', () => {
  it('agrees on 400 random conversations', () => {
    const random = seeded(31)
    for (let run = 0; run < 400; run++) {
      const speech = [...randomSide('agent', random), ...randomSide('caller', random)]
      const { figures } = turnTaking(speech, {}, settings)
      expect(figures, JSON.stringify(speech)).toEqual(speech.length === 0 ? null : reference(speech))
    }
  })
})

function reference(speech: Speech[]): TurnTaking {
  const speaks = (side: Side, t: number) =>
    speech.some((s) => s.side === side && s.startMs <= t && t < s.stopMs!)
  const first = Math.min(...speech.map((s) => s.startMs))
  const last = Math.max(...speech.map((s) => s.stopMs!))
  let agentMs = 0
  let callerMs = 0
  let overlapMs = 0
  const silences: number[] = []
  let run = 0
  for (let t = first; t < last; t++) {
    const a = speaks('agent', t)
    const c = speaks('caller', t)
    agentMs += a ? 1 : 0
    callerMs += c ? 1 : 0
    overlapMs += a && c ? 1 : 0
    if (!a && !c) run++
    else if (run > 0) {
      silences.push(run)
      run = 0
    }
  }
  const ofSide = (side: Side) => speech.filter((s) => s.side === side)
  const during = (s: Speech, side: Side) =>
    ofSide(side).find((o) => o.startMs < s.startMs && s.startMs < o.stopMs!)
  const bargedInto = ofSide('caller')
    .map((c) => during(c, 'agent'))
    .filter((a) => a !== undefined)
  // a response: the speech that started last before the agent's is the caller's
  const gaps = ofSide('agent').flatMap((a) => {
    const before = speech
      .filter((s) => s.startMs < a.startMs)
      .sort((x, y) => x.startMs - y.startMs)
      .at(-1)
    return before?.side === 'caller' ? [{ gap: a.startMs - before.stopMs!, e2e: a.e2eLatencyMs }] : []
  })
  const sorted = gaps.map((g) => g.gap).sort((x, y) => x - y)
  const quantile = (q: number) => {
    if (sorted.length === 0) return null
    const rank = (sorted.length - 1) * q
    const low = Math.floor(rank)
    return sorted[low]! + (sorted[Math.min(low + 1, sorted.length - 1)]! - sorted[low]!) * (rank - low)
  }
  return {
    agentTalkMs: agentMs,
    callerTalkMs: callerMs,
    talkRatio: agentMs + callerMs === 0 ? 0 : agentMs / (agentMs + callerMs),
    silenceMs: silences.reduce((x, y) => x + y, 0),
    deadAirCount: silences.filter((s) => s > settings.deadAirMs).length,
    longestSilenceMs: Math.max(0, ...silences),
    callerBargeIns: bargedInto.length,
    bargeInsYielded: bargedInto.filter((a) => a!.interrupted).length,
    agentCutIns: ofSide('agent').filter((a) => during(a, 'caller')).length,
    overlapMs,
    firstWordMs: null,
    responseTurns: gaps.length,
    responseGapP50Ms: quantile(0.5),
    responseGapP95Ms: quantile(0.95),
    gapE2eDisagreements: gaps.filter((g) => g.e2e !== undefined && Math.abs(g.gap - g.e2e) > 500).length,
  }
}

/** One side's speech, in order, never overlapping itself; agent starts even, caller starts odd (no ties). */
function randomSide(side: Side, random: () => number): Speech[] {
  const speech: Speech[] = []
  let t = Math.floor(random() * 2_000)
  for (let i = Math.floor(random() * 6); i > 0; i--) {
    const startMs = 2 * Math.floor(t / 2) + (side === 'caller' ? 1 : 0)
    const stopMs = startMs + Math.floor(random() * 2_500)
    speech.push({
      side,
      startMs,
      stopMs,
      interrupted: random() < 0.3,
      e2eLatencyMs: random() < 0.5 ? Math.floor(random() * 2_000) : undefined,
    })
    t = stopMs + 2 + Math.floor(random() * 4_500)
  }
  return speech
}

function seeded(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return state / 2_147_483_648
  }
}
