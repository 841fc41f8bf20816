import { describe, expect, it } from 'vitest'
import { logThrottle } from './log-throttle.ts'

describe('logThrottle', () => {
  it('writes the first line of a key, holds back the rest of the interval, then reports how many', () => {
    const throttle = logThrottle(10_000)
    expect(throttle('503', 0)).toBe(0)
    expect(throttle('503', 1)).toBeUndefined()
    expect(throttle('503', 9_999)).toBeUndefined()
    expect(throttle('503', 10_000)).toBe(2)
    expect(throttle('503', 10_001)).toBeUndefined()
    expect(throttle('503', 25_000)).toBe(1)
    expect(throttle('503', 40_000)).toBe(0)
  })

  it('keeps each key apart', () => {
    const throttle = logThrottle(10_000)
    expect(throttle('publish timeout', 0)).toBe(0)
    expect(throttle('unreachable', 1)).toBe(0)
    expect(throttle('publish timeout', 2)).toBeUndefined()
    expect(throttle('unreachable', 3)).toBeUndefined()
  })
})
