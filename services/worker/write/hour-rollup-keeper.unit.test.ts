import { describe, expect, it } from 'vitest'
import {
  type AgentHour,
  insertVisibilityMarginSeconds,
} from '../../../core/clickhouse/latency-hour-rollup.ts'
import {
  endedHours,
  HourRollupKeeper,
  type HourRollupKeeperDeps,
  nextPassDelayMs,
} from './hour-rollup-keeper.ts'

// The keeper's sequencing with stand-in functions for its two questions and its recompute (the
// statements themselves run against the engine in test/worker/hour-rollup-recompute).
const margin = insertVisibilityMarginSeconds * 1000
const minute = 60_000

function keeperWith(steps: { now: number; found?: AgentHour[]; fail?: 'scan' | 'recompute' }[]) {
  const scans: number[] = []
  const recomputed: AgentHour[][] = []
  const outcomes: string[] = []
  let step = -1
  const deps: HourRollupKeeperDeps = {
    serverNow: async () => steps[++step]!.now,
    dirtyHours: async (sinceMs) => {
      scans.push(sinceMs)
      if (steps[step]!.fail === 'scan') throw new Error('ClickHouse away')
      return steps[step]!.found ?? []
    },
    recompute: async (hours) => {
      if (steps[step]!.fail === 'recompute') throw new Error('ClickHouse away')
      recomputed.push([...hours])
    },
    intervalMs: 1000,
    onPass: (outcome) => outcomes.push('hours' in outcome ? `hours ${outcome.hours}` : 'failed'),
  }
  return { keeper: new HourRollupKeeper(deps), scans, recomputed, outcomes }
}

/** Hours that ended long before the nows below (10,000,000 ms on). */
const a = { agent_id: 'a', hour: 3600 }
const b = { agent_id: 'b', hour: 3600 }
const t0 = 10_000_000

describe('HourRollupKeeper', () => {
  it('recomputes the hours writes told it, each once however often told, without reading stamps', async () => {
    const { keeper, scans, recomputed } = keeperWith([{ now: t0 }, { now: t0 + 1000 }, { now: t0 + 2000 }])
    await keeper.pass()
    keeper.touched([a, b])
    keeper.touched([a])
    expect(await keeper.pass()).toBe(2)
    expect(await keeper.pass(), 'nothing told since').toBe(0)
    expect(recomputed).toEqual([[a, b]])
    expect(scans, 'only the first pass scans').toEqual([0])
  })

  it('scans every row first, then once a minute from the scan before less the margin (the server clock)', async () => {
    const { keeper, scans, recomputed } = keeperWith([
      { now: t0, found: [a] },
      { now: t0 + 30_000 },
      { now: t0 + minute, found: [b] },
      { now: t0 + minute + 30_000 },
      { now: t0 + 2 * minute },
    ])
    for (let pass = 0; pass < 5; pass++) await keeper.pass()
    expect(scans).toEqual([0, t0 - margin, t0 + minute - margin])
    expect(recomputed).toEqual([[a], [b]])
  })

  it('a failed pass keeps what it was told and where it scans from, for the next pass', async () => {
    const { keeper, scans, recomputed, outcomes } = keeperWith([
      { now: t0 },
      { now: t0 + minute, fail: 'recompute', found: [b] },
      { now: t0 + minute + 1000, fail: 'scan' },
      { now: t0 + minute + 2000, found: [b] },
    ])
    await keeper.pass()
    keeper.touched([a])
    await expect(keeper.pass()).rejects.toThrow(/away/)
    await expect(keeper.pass()).rejects.toThrow(/away/)
    expect(await keeper.pass()).toBe(2)
    expect(scans).toEqual([0, t0 - margin, t0 - margin, t0 - margin])
    expect(recomputed).toEqual([[a, b]])
    expect(outcomes).toEqual(['hours 0', 'failed', 'failed', 'hours 2'])
  })

  it('holds an hour still running and recomputes it in the first pass after it ended', async () => {
    const running = { agent_id: 'a', hour: 36_000 } // ends at 39,600 s
    const { keeper, recomputed } = keeperWith([
      { now: 39_000_000 },
      { now: 39_500_000 },
      { now: 39_600_000 },
      { now: 39_700_000 },
    ])
    keeper.touched([running, b])
    expect(await keeper.pass(), 'the ended one only').toBe(1)
    expect(await keeper.pass(), 'still running').toBe(0)
    expect(await keeper.pass(), 'ended').toBe(1)
    expect(await keeper.pass()).toBe(0)
    expect(recomputed).toEqual([[b], [running]])
  })

  it('passes asked for together run one after the other', async () => {
    const { keeper, scans } = keeperWith([{ now: t0 }, { now: t0 + minute }, { now: t0 + 2 * minute }])
    await Promise.all([keeper.pass(), keeper.pass(), keeper.pass()])
    expect(scans).toEqual([0, t0 - margin, t0 + minute - margin])
  })

  it('never moves where it scans from back (a server clock set back)', async () => {
    const { keeper, scans } = keeperWith([{ now: 2 * t0 }, { now: 3 * t0 }, { now: 3 * t0 + 2 * minute }])
    await keeper.pass()
    await keeper.pass()
    await keeper.pass()
    expect(scans).toEqual([0, 2 * t0 - margin, 3 * t0 - margin])
  })

  it('start passes at once and then every interval; stop makes a last pass and ends it', async () => {
    const steps = Array.from({ length: 50 }, (_, index) => ({ now: t0 + index }))
    const { keeper, recomputed } = keeperWith(steps)
    keeper.start()
    await new Promise((resolve) => setTimeout(resolve, 50))
    keeper.touched([a])
    await keeper.stop()
    expect(recomputed, 'the last pass took in the last write').toEqual([[a]])
    keeper.touched([b])
    await new Promise((resolve) => setTimeout(resolve, 1200))
    expect(recomputed).toEqual([[a]])
  })
})

describe('endedHours', () => {
  it('splits at the end of each hour, each agent-hour once', () => {
    const first = { agent_id: 'a', hour: 7200 }
    const second = { agent_id: 'b', hour: 7200 }
    expect(endedHours([first, second, first], 10_800_000)).toEqual({ due: [first, second], running: [] })
    expect(endedHours([first, second, first], 10_799_999)).toEqual({ due: [], running: [first, second] })
  })
})

describe('nextPassDelayMs', () => {
  it('keeps the interval after a short pass', () => {
    expect(nextPassDelayMs(10_000, 80)).toBe(10_000)
    expect(nextPassDelayMs(1000, 300)).toBe(1000)
  })
  it('waits three times a long pass, so the keeper holds at most a quarter of the engine', () => {
    expect(nextPassDelayMs(1000, 3500)).toBe(10_500)
    expect(nextPassDelayMs(10_000, 5000)).toBe(15_000)
  })
  it('never waits more than a minute after a pass, unless the interval itself is longer', () => {
    expect(nextPassDelayMs(1000, 40_000)).toBe(60_000)
    expect(nextPassDelayMs(240_000, 40_000)).toBe(240_000)
  })
})
