import { describe, expect, it } from 'vitest'
import { alertEpisodes, timeToDetect } from './regression-episodes.ts'

const at = (minutes: number, firing: boolean) => ({ at: minutes * 60_000, firing })

describe('alertEpisodes', () => {
  it('counts each run of firing evaluations once, in time order', () => {
    const evaluations = [at(3, true), at(0, false), at(1, true), at(2, true), at(4, false), at(5, true)]
    expect(alertEpisodes(evaluations)).toEqual([
      { from: 60_000, to: 180_000 },
      { from: 300_000, to: 300_000 },
    ])
  })

  it('is empty when nothing fired', () => {
    expect(alertEpisodes([at(0, false), at(1, false)])).toEqual([])
  })
})

describe('timeToDetect', () => {
  it('is the time from the change to the first firing evaluation after it', () => {
    expect(timeToDetect([at(5, true), at(12, false), at(17, true), at(18, true)], 10 * 60_000)).toBe(
      7 * 60_000,
    )
  })

  it('is undefined when nothing fired after the change', () => {
    expect(timeToDetect([at(5, true), at(12, false)], 10 * 60_000)).toBeUndefined()
  })
})
