import { describe, expect, it } from 'vitest'
import { durationMs, sinceMs } from './time-options.ts'

describe('the time options of versions', () => {
  const now = Date.parse('2026-11-28T12:00:00Z')

  it('reads durations in minutes, hours and days, and nothing else', () => {
    expect(durationMs('90m')).toBe(90 * 60_000)
    expect(durationMs('36h')).toBe(36 * 3_600_000)
    expect(durationMs(' 7d ')).toBe(7 * 86_400_000)
    expect(durationMs('7')).toBeUndefined()
    expect(durationMs('7w')).toBeUndefined()
  })

  it('reads --since as a duration back from now or as an ISO 8601 time', () => {
    expect(sinceMs('2d', now)).toBe(Date.parse('2026-11-26T12:00:00Z'))
    expect(sinceMs('2026-11-01', now)).toBe(Date.parse('2026-11-01T00:00:00Z'))
    expect(sinceMs('2026-11-01T08:30:00+01:00', now)).toBe(Date.parse('2026-11-01T07:30:00Z'))
    expect(() => sinceMs('yesterday', now)).toThrow(/--since/)
    expect(() => sinceMs('2026-13-45', now)).toThrow(/--since/)
  })
})
