import { describe, expect, it } from 'vitest'
import { conversationTiming, type TimedConversation } from './live-conversation.ts'

const now = Date.parse('2026-11-27T12:00:00Z')
const hour = 3600_000
const at = (startMs: number, durationSeconds: number | null = null): TimedConversation => ({
  event_time: startMs,
  event_time_source: 'start_time',
  duration_seconds: durationSeconds,
})

describe('conversationTiming', () => {
  it('is live for a conversation that just ended, or is still within the window', () => {
    expect(conversationTiming(at(now - 60_000, 30), now, hour)).toBe('live')
    expect(conversationTiming(at(now - 30 * 60_000), now, hour)).toBe('live')
  })

  it('is live exactly at the window, and older one millisecond before it', () => {
    expect(conversationTiming(at(now - hour), now, hour)).toBe('live')
    expect(conversationTiming(at(now - hour - 1), now, hour)).toBe('older')
  })

  it('judges by the end: a long call that started before the window but ended within it is live', () => {
    expect(conversationTiming(at(now - 3 * hour, 2.5 * 3600), now, hour)).toBe('live')
    expect(conversationTiming(at(now - 3 * hour, 1.5 * 3600), now, hour)).toBe('older')
  })

  it('takes the start as the end when the duration is missing, negative or not a number', () => {
    for (const duration of [null, -600, Number.NaN, Number.POSITIVE_INFINITY])
      expect(conversationTiming(at(now - 2 * hour, duration), now, hour), String(duration)).toBe('older')
  })

  it('is live for a clock a little ahead (within the window), future beyond it', () => {
    expect(conversationTiming(at(now + 5 * 60_000), now, hour)).toBe('live')
    expect(conversationTiming(at(now + hour), now, hour)).toBe('live')
    expect(conversationTiming(at(now + hour + 1), now, hour)).toBe('future')
  })

  it('is older for a backfill a year old and for a June 2025 `send --generate`', () => {
    expect(conversationTiming(at(now - 365 * 24 * hour, 120), now, hour)).toBe('older')
    expect(conversationTiming(at(Date.parse('2025-06-02T06:00:00Z'), 120), now, hour)).toBe('older')
  })

  it('is no_time when the payload held no time at all, whatever its fallback key time', () => {
    expect(
      conversationTiming({ event_time: 0, event_time_source: 'none', duration_seconds: 60 }, now, hour),
    ).toBe('no_time')
    // A key time from created_at or another timestamp is a time of the conversation: judged as any.
    expect(conversationTiming({ ...at(now - 60_000), event_time_source: 'created_at' }, now, hour)).toBe(
      'live',
    )
    expect(
      conversationTiming({ ...at(now - 60_000), event_time_source: 'earliest_timestamp' }, now, hour),
    ).toBe('live')
  })
})
