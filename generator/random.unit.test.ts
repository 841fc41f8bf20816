import { describe, expect, it } from 'vitest'
import { createRandom } from './random.ts'
import { formatTimestamp } from './timestamp-format.ts'

describe('createRandom', () => {
  it('repeats its sequence for a seed and differs for another', () => {
    const draw = (seed: number) => Array.from({ length: 5 }, createRandom(seed).next)
    expect(draw(42)).toEqual(draw(42))
    expect(draw(42)).not.toEqual(draw(43))
  })

  it('keeps draws in their ranges', () => {
    const rng = createRandom(1)
    for (let i = 0; i < 2000; i++) {
      const value = rng.next()
      expect(value >= 0 && value < 1).toBe(true)
      const int = rng.int(3, 5)
      expect([3, 4, 5]).toContain(int)
    }
    expect(new Set(Array.from({ length: 300 }, () => rng.int(0, 2))).size).toBe(3)
  })

  it('makes version 4 UUIDs and strings of the asked length', () => {
    const rng = createRandom(9)
    expect(rng.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(rng.hex(12)).toMatch(/^[0-9a-f]{12}$/)
    expect(rng.alphanumeric(24)).toMatch(/^[A-Za-z0-9]{24}$/)
    expect(rng.digits(7)).toMatch(/^\d{7}$/)
  })

  it('draws log-normal values around the median', () => {
    const rng = createRandom(3)
    const values = Array.from({ length: 4001 }, () => rng.logNormal(0.5, 0.4)).sort((a, b) => a - b)
    expect(values[2000]).toBeGreaterThan(0.45)
    expect(values[2000]).toBeLessThan(0.55)
    expect(values[0]).toBeGreaterThan(0)
  })

  it('picks by weight and refuses an empty list', () => {
    const rng = createRandom(4)
    expect(
      rng.weighted([
        ['only', 1],
        ['never', 0],
      ]),
    ).toBe('only')
    expect(() => rng.pick([])).toThrow('empty')
    expect(() => createRandom(Number.POSITIVE_INFINITY)).toThrow('seed')
  })
})

describe('formatTimestamp', () => {
  const at = Date.parse('2025-06-02T06:05:09.123Z') + 0.4567
  it('writes UTC with Z or a local offset, with 0, 3, 6 or 7 fractional digits', () => {
    expect(formatTimestamp(at, { offsetMinutes: 0, fractionDigits: 0 })).toBe('2025-06-02T06:05:09Z')
    expect(formatTimestamp(at, { offsetMinutes: 0, fractionDigits: 3 })).toBe('2025-06-02T06:05:09.123Z')
    expect(formatTimestamp(at, { offsetMinutes: 120, fractionDigits: 6 })).toBe(
      '2025-06-02T08:05:09.123456+02:00',
    )
    expect(formatTimestamp(at, { offsetMinutes: -330, fractionDigits: 7 })).toBe(
      '2025-06-02T00:35:09.1234567-05:30',
    )
  })

  it('denotes the same instant in every style', () => {
    expect(Date.parse(formatTimestamp(at, { offsetMinutes: 120, fractionDigits: 7 }))).toBe(Math.floor(at))
  })
})
