import { describe, expect, it } from 'vitest'
import { generatedSpan } from './generated-span.ts'

const now = Date.parse('2026-11-27T12:00:00Z')

describe('generatedSpan', () => {
  it('dates conversations within the last day by default, ending a quarter of an hour before now', () => {
    const span = generatedSpan({}, now)
    expect(span.spanHours).toBe(23.75)
    expect(new Date(span.from).toISOString()).toBe('2026-11-26T12:00:00.000Z')
    expect(span.from + span.spanHours * 3600_000).toBe(now - 15 * 60_000)
  })

  it('takes --days for a longer recent history', () => {
    const span = generatedSpan({ days: '7' }, now)
    expect(span.spanHours).toBe(167.75)
    expect(new Date(span.from).toISOString()).toBe('2026-11-20T12:00:00.000Z')
  })

  it('starts at --from and lasts --days', () => {
    const span = generatedSpan({ from: '2025-06-01', days: '30' }, now)
    expect(new Date(span.from).toISOString()).toBe('2025-06-01T00:00:00.000Z')
    expect(span.spanHours).toBe(720)
  })

  it('refuses a span that would end after now, a date it cannot read and days that are not positive', () => {
    expect(() => generatedSpan({ from: '2026-11-27T00:00:00Z' }, now)).toThrow(/after now/)
    expect(() => generatedSpan({ from: 'last june' }, now)).toThrow(/--from is not a date: last june/)
    expect(() => generatedSpan({ days: '0' }, now)).toThrow(/--days must be a positive number/)
    expect(() => generatedSpan({ days: 'many' }, now)).toThrow(/--days must be a positive number/)
  })
})
