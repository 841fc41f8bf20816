import { describe, expect, it } from 'vitest'
import { type AgentHour, insertVisibilityMarginSeconds } from '../../core/latency-hour-rollup.ts'
import { endedHours, HourRollupKeeper, type HourRollupKeeperDeps } from './hour-rollup-keeper.ts'

// The keeper's sequencing with stand-in functions for its two questions and its recompute (the
// statements themselves run against the engine in test/worker/hour-rollup-recompute).
const margin = insertVisibilityMarginSeconds * 1000

function keeperWith(steps: { now: number; hours?: AgentHour[]; fail?: 'dirty' | 'recompute' }[]) {
  const reads: number[] = []
  const recomputed: AgentHour[][] = []
  const outcomes: string[] = []
  let step = -1
  const deps: HourRollupKeeperDeps = {
    serverNow: async () => steps[++step]!.now,
    dirtyHours: async (sinceMs) => {
      reads.push(sinceMs)
      if (steps[step]!.fail === 'dirty') throw new Error('ClickHouse away')
      return steps[step]!.hours ?? []
    },
    recompute: async (hours) => {
      if (steps[step]!.fail === 'recompute') throw new Error('ClickHouse away')
      recomputed.push([...hours])
    },
    intervalMs: 1000,
    onPass: (outcome) => outcomes.push('hours' in outcome ? `hours ${outcome.hours}` : 'failed'),
  }
  return { keeper: new HourRollupKeeper(deps), reads, recomputed, outcomes }
}

/** An hour that ended long before the nows below (1,000,000 ms on). */
const hour = { agent_id: 'a', hour: 3600 }

describe('HourRollupKeeper', () => {
  it('reads every row first, then from the start of the pass before less the margin (the server clock)', async () => {
    const { keeper, reads, recomputed } = keeperWith([
      { now: 10_000_000, hours: [hour] },
      { now: 10_010_000 },
      { now: 10_020_000, hours: [hour] },
    ])
    expect(await keeper.pass()).toBe(1)
    expect(await keeper.pass()).toBe(0)
    expect(await keeper.pass()).toBe(1)
    expect(reads).toEqual([0, 10_000_000 - margin, 10_010_000 - margin])
    expect(recomputed).toEqual([[hour], [hour]])
  })

  it('a failed pass leaves the bound where it was, so the next pass reads what it did not take in', async () => {
    const { keeper, reads, outcomes } = keeperWith([
      { now: 10_000_000 },
      { now: 10_010_000, hours: [hour], fail: 'recompute' },
      { now: 10_020_000, fail: 'dirty' },
      { now: 10_030_000, hours: [hour] },
      { now: 10_040_000 },
    ])
    await keeper.pass()
    await expect(keeper.pass()).rejects.toThrow(/away/)
    await expect(keeper.pass()).rejects.toThrow(/away/)
    await keeper.pass()
    await keeper.pass()
    expect(reads).toEqual([
      0,
      10_000_000 - margin,
      10_000_000 - margin,
      10_000_000 - margin,
      10_030_000 - margin,
    ])
    expect(outcomes).toEqual(['hours 0', 'failed', 'failed', 'hours 1', 'hours 0'])
  })

  it('passes asked for together run one after the other, each reading after the one before', async () => {
    const { keeper, reads } = keeperWith([{ now: 10_000_000 }, { now: 10_010_000 }, { now: 10_020_000 }])
    await Promise.all([keeper.pass(), keeper.pass(), keeper.pass()])
    expect(reads).toEqual([0, 10_000_000 - margin, 10_010_000 - margin])
  })

  it('never moves the bound back (a server clock set back)', async () => {
    const { keeper, reads } = keeperWith([{ now: 20_000_000 }, { now: 10_000_000 }, { now: 15_000_000 }])
    await keeper.pass()
    await keeper.pass()
    await keeper.pass()
    expect(reads).toEqual([0, 20_000_000 - margin, 20_000_000 - margin])
  })

  it('start passes at once and then every interval; stop makes a last pass and ends it', async () => {
    const { keeper, reads } = keeperWith(
      Array.from({ length: 50 }, (_, index) => ({ now: 10_000_000 + index })),
    )
    keeper.start()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(reads.length).toBe(1)
    await keeper.stop()
    expect(reads.length, 'the last pass').toBe(2)
    await new Promise((resolve) => setTimeout(resolve, 1200))
    expect(reads.length).toBe(2)
  })

  it('holds an hour still running and recomputes it in the first pass after it ended, its rows read or not', async () => {
    const running = { agent_id: 'a', hour: 36_000 } // ends at 39,600 s
    const { keeper, recomputed } = keeperWith([
      { now: 39_000_000, hours: [running, hour] },
      { now: 39_500_000 },
      { now: 39_600_000 },
      { now: 39_700_000 },
    ])
    expect(await keeper.pass(), 'the ended one only').toBe(1)
    expect(await keeper.pass(), 'still running, its rows not read again').toBe(0)
    expect(await keeper.pass(), 'ended').toBe(1)
    expect(await keeper.pass()).toBe(0)
    expect(recomputed).toEqual([[hour], [running]])
  })
})

describe('endedHours', () => {
  it('splits at the end of each hour, each agent-hour once', () => {
    const a = { agent_id: 'a', hour: 7200 }
    const b = { agent_id: 'b', hour: 7200 }
    expect(endedHours([a, b, a], 10_800_000)).toEqual({ due: [a, b], running: [] })
    expect(endedHours([a, b, a], 10_799_999)).toEqual({ due: [], running: [a, b] })
  })
})
