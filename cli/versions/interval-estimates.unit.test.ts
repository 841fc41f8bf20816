import { describe, expect, it } from 'vitest'
import { createRandom } from '../../generator/random.ts'
import {
  comparison,
  defaultBootstrap,
  meanEstimate,
  proportionEstimate,
  quantileEstimate,
  ratioEstimate,
} from './interval-estimates.ts'

const covers = (estimate: { low: number | null; high: number | null }, truth: number) =>
  estimate.low !== null && estimate.high !== null && estimate.low <= truth && truth <= estimate.high

describe('proportionEstimate (Wilson)', () => {
  it('gives the known interval and stays inside [0, 1]', () => {
    // Wilson's interval for 3 of 10 at 95 %: 0.1078 to 0.6032.
    const three = proportionEstimate(3, 10)
    expect(three.value).toBeCloseTo(0.3, 12)
    expect(three.low).toBeCloseTo(0.1078, 4)
    expect(three.high).toBeCloseTo(0.6032, 4)
    const none = proportionEstimate(0, 20)
    expect(none.low).toBe(0)
    expect(none.high).toBeGreaterThan(0.1)
    expect(proportionEstimate(20, 20).high).toBe(1)
    expect(proportionEstimate(0, 0)).toEqual({ value: null, low: null, high: null, n: 0 })
  })

  it('covers the true rate about 95 % of the time, also for rare events and few calls', () => {
    const random = createRandom(3201)
    for (const [p, n] of [
      [0.03, 50],
      [0.1, 30],
      [0.3, 200],
    ] as const) {
      let covered = 0
      const runs = 4000
      for (let run = 0; run < runs; run++) {
        let successes = 0
        for (let i = 0; i < n; i++) if (random.next() < p) successes++
        if (covers(proportionEstimate(successes, n), p)) covered++
      }
      // The plain normal (Wald) interval covers p = 0.03 at n = 50 under 80 % of the time.
      expect(covered / runs, `p ${p}, n ${n}`).toBeGreaterThan(0.92)
      expect(covered / runs, `p ${p}, n ${n}`).toBeLessThan(0.99)
    }
  })
})

describe('quantileEstimate (order statistics)', () => {
  it('takes its ends from the sorted values at the binomial ranks', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i) // 1..100, unsorted
    const median = quantileEstimate(values, 0.5)
    expect(median.value).toBe(50.5)
    // Binomial(100, 0.5): P(B <= 39) = 0.0176 <= 0.025 < P(B <= 40); so ranks 40 and 61.
    expect(median.low).toBe(40)
    expect(median.high).toBe(61)
    expect(median.n).toBe(100)
  })

  it('has no upper end for a high quantile of few values, rather than one made up', () => {
    const p95 = quantileEstimate([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95)
    expect(p95.high).toBeNull()
    expect(p95.low).not.toBeNull()
    expect(quantileEstimate([], 0.5)).toEqual({ value: null, low: null, high: null, n: 0 })
  })

  it('covers the true median and p90 at least 95 % of the time, whatever the distribution', () => {
    const random = createRandom(3202)
    // Log-normal latencies with median 0.9 s: the true p90 is 0.9 * exp(0.5 * 1.2816).
    for (const [q, truth, n] of [
      [0.5, 0.9, 25],
      [0.5, 0.9, 400],
      [0.9, 0.9 * Math.exp(0.5 * 1.2815515655), 60],
    ] as const) {
      let covered = 0
      const runs = 2000
      for (let run = 0; run < runs; run++) {
        const values = Array.from({ length: n }, () => random.logNormal(0.9, 0.5))
        if (covers(quantileEstimate(values, q), truth)) covered++
      }
      expect(covered / runs, `q ${q}, n ${n}`).toBeGreaterThan(0.935)
      expect(covered / runs, `q ${q}, n ${n}`).toBeLessThan(0.995)
    }
  })
})

describe('ratioEstimate and meanEstimate (bootstrap)', () => {
  it('gives the same interval for the same data and seed, and none without a denominator', () => {
    const values = [0.12, 0.4, 0.09, 0.33, 0.2, 0.51, 0.07]
    expect(meanEstimate(values)).toEqual(meanEstimate(values))
    expect(meanEstimate(values).value).toBeCloseTo(values.reduce((a, b) => a + b) / values.length, 12)
    expect(ratioEstimate([1, 2], [0, 0])).toEqual({ value: null, low: null, high: null, n: 2 })
    const ratio = ratioEstimate([1, 0, 3, 2], [10, 5, 10, 5])
    expect(ratio.value).toBeCloseTo(6 / 30, 12)
    expect(ratio.low!).toBeLessThan(ratio.value!)
    expect(ratio.high!).toBeGreaterThan(ratio.value!)
  })

  it('covers the true mean of a skewed cost about 95 % of the time', () => {
    const random = createRandom(3203)
    const truth = 0.2 * Math.exp(0.5 * 0.6 * 0.6) // log-normal mean
    let covered = 0
    const runs = 400
    for (let run = 0; run < runs; run++) {
      const costs = Array.from({ length: 120 }, () => random.logNormal(0.2, 0.6))
      if (covers(meanEstimate(costs, { ...defaultBootstrap, resamples: 400, seed: run }), truth)) covered++
    }
    expect(covered / runs).toBeGreaterThan(0.9)
    expect(covered / runs).toBeLessThan(0.985)
  })
})

describe('ratioEstimate with many calls (delta method)', () => {
  it('agrees with the bootstrap where both apply', () => {
    const random = createRandom(77)
    const turns = Array.from({ length: 6000 }, () => 4 + Math.floor(random.next() * 30))
    const bargeIns = turns.map((count) => Math.floor(random.next() * count * 0.12))
    const normal = ratioEstimate(bargeIns, turns)
    const bootstrap = ratioEstimate(bargeIns, turns, {
      ...defaultBootstrap,
      normalAbove: Number.POSITIVE_INFINITY,
    })
    expect(normal.value).toBe(bootstrap.value)
    const width = bootstrap.high! - bootstrap.low!
    expect(Math.abs(normal.low! - bootstrap.low!)).toBeLessThan(width * 0.1)
    expect(Math.abs(normal.high! - bootstrap.high!)).toBeLessThan(width * 0.1)
  })

  it('covers the true mean of a skewed cost about 95 % of the time', () => {
    const random = createRandom(4103)
    const truth = 0.2 * Math.exp(0.5 * 0.9 * 0.9)
    let covered = 0
    const runs = 400
    for (let run = 0; run < runs; run++) {
      const costs = Array.from({ length: 6000 }, () => random.logNormal(0.2, 0.9))
      if (covers(meanEstimate(costs), truth)) covered++
    }
    expect(covered / runs).toBeGreaterThan(0.92)
    expect(covered / runs).toBeLessThan(0.98)
  })
})

describe('comparison', () => {
  const estimate = (low: number | null, high: number | null) => ({ value: 0, low, high, n: 10 })
  it('says higher or lower only when the intervals do not overlap', () => {
    expect(comparison(estimate(0.8, 1.0), estimate(1.1, 1.3))).toBe('higher')
    expect(comparison(estimate(0.8, 1.0), estimate(0.5, 0.7))).toBe('lower')
    expect(comparison(estimate(0.8, 1.0), estimate(0.95, 1.3))).toBe('unclear')
    expect(comparison(estimate(0.8, null), estimate(1.1, 1.3))).toBe('unclear')
  })
})
