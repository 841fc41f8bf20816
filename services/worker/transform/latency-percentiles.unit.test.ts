import { describe, expect, it } from 'vitest'
import { percentile } from './latency-percentiles.ts'

describe('percentile', () => {
  it('interpolates between the closest ranks', () => {
    expect(percentile([4, 1, 3, 2], 0.5)).toBe(2.5)
    expect(percentile([1, 2, 3, 4, 5], 0.95)).toBeCloseTo(4.8, 12)
    expect(percentile([7], 0.95)).toBe(7)
    expect(percentile([1, 9], 0)).toBe(1)
    expect(percentile([1, 9], 1)).toBe(9)
  })

  it('is null without values and leaves its input alone', () => {
    expect(percentile([], 0.5)).toBeNull()
    const values = [3, 1, 2]
    percentile(values, 0.5)
    expect(values).toEqual([3, 1, 2])
  })
})
