import { describe, expect, it } from 'vitest'
import { validateConversationComplete } from '../../core/event/event-validation.ts'
import { loadFixture } from '../../test/fixtures/index.ts'
import { conversationEndMs, movedToLastDay, shiftDays } from './fixture-dates.ts'

const noon = Date.parse('2026-11-27T12:00:00Z')

describe('movedToLastDay', () => {
  it('moves the full fixture by 536 days: every date-time of the schema, nothing else', () => {
    const original = loadFixture('full')
    // start 2025-06-09T06:30:05Z + 136.648 s ends 06:32:21.648Z; 536 days later is 2026-11-27, before noon
    const { event, days } = movedToLastDay(original, noon)
    const data = (event as typeof original).data
    expect(days).toBe(536)
    expect(data.start_time).toBe('2026-11-27T08:30:05+02:00')
    expect(data.created_at).toBe('2026-11-27T06:30:03.917Z')
    expect(data.agent_joined_at).toBe('2026-11-27T08:30:06.8081999+02:00')
    expect(data.audio_url_expires_at).toBe('2026-12-04T08:32:22+02:00')
    expect(data.audio_url).toBe(original.data.audio_url)
    expect(data.history![1]!.created_at).toBe('2026-11-27T06:30:08.000335Z')
    expect(data.history![2]!.metrics!.started_speaking_at).toBe('2026-11-27T06:30:14.943224Z')
    expect(data.history![2]!.metrics!.stopped_speaking_at).toBe('2026-11-27T06:30:16.526883Z')
    expect(conversationEndMs(event)! - conversationEndMs(original)!).toBe(536 * 86_400_000)
    expect(validateConversationComplete(event)).toEqual([])
    expect(original.data.start_time).toBe('2025-06-09T08:30:05+02:00')
  })

  it('changes the date part alone of each string it changes, and each date-time of every item', () => {
    const original = loadFixture('interruptions')
    const { event, days } = movedToLastDay(original, noon)
    const before = strings(original)
    const after = strings(event)
    const changed = before.filter((text, i) => text !== after[i])
    expect(days).toBeGreaterThan(500)
    for (const [i, text] of before.entries())
      if (text !== after[i]) expect(after[i]!.slice(10), text).toBe(text.slice(10))
    const speakingTimes = original.data.history!.flatMap((item) =>
      [item.metrics?.started_speaking_at, item.metrics?.stopped_speaking_at].filter(Boolean),
    )
    expect(changed.length).toBeGreaterThan(speakingTimes.length)
    for (const time of speakingTimes) expect(changed).toContain(time)
  })

  it('leaves unknown fields alone, even when they look like dates', () => {
    const original = { ...loadFixture('full') }
    original.data = { ...original.data, renewal_due_at: '2025-06-30T00:00:00Z' } as typeof original.data
    const { event } = movedToLastDay(original, noon)
    expect((event as { data: Record<string, unknown> }).data.renewal_due_at).toBe('2025-06-30T00:00:00Z')
  })

  it('moves nothing that ended within the last day, and a whole day back moves it by one', () => {
    const original = loadFixture('full')
    const end = conversationEndMs(original)!
    expect(movedToLastDay(original, end + 3_600_000)).toEqual({ event: original, days: 0 })
    expect(movedToLastDay(original, end + 86_400_000 - 1).days).toBe(0)
    const oneDay = movedToLastDay(original, end + 86_400_000)
    expect(oneDay.days).toBe(1)
    expect(conversationEndMs(oneDay.event)).toBe(end + 86_400_000)
  })

  it('takes created_at without a start_time, and leaves an event without either as it is', () => {
    const { start_time: _, ...withoutStart } = loadFixture('full').data
    expect(conversationEndMs({ event: 'ConversationComplete', data: withoutStart })).toBe(
      Date.parse('2025-06-09T06:30:03.917Z') + 136_648,
    )
    const bare = { event: 'ConversationComplete', data: { session_id: 'x' } }
    expect(movedToLastDay(bare, noon)).toEqual({ event: bare, days: 0 })
  })
})

describe('shiftDays', () => {
  it('moves the date over month, leap day and year ends, keeping time, precision and zone', () => {
    expect(shiftDays('2024-02-28T23:00:00.1234567-05:00', 1)).toBe('2024-02-29T23:00:00.1234567-05:00')
    expect(shiftDays('2025-12-31 23:59:59Z', 1)).toBe('2026-01-01 23:59:59Z')
    expect(shiftDays('2026-03-01T00:00:00+01:00', -1)).toBe('2026-02-28T00:00:00+01:00')
    expect(shiftDays('not a date', 3)).toBe('not a date')
  })
})

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(strings)
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings)
  return []
}
