import { mapDateTimes } from '../../core/event/date-time-fields.ts'
import { checkTimestamp } from '../../core/event/storable-timestamp.ts'

// `send --fixture` sends a fixture as if it had just happened: the fixtures are dated June 2025,
// and the overview page and the live metrics show the last day. Every date-time moves by the
// same whole number of days, so each keeps its time of day, precision and zone as written, and
// the intervals between them (speaking times, item times) stay exactly as recorded.

const dayMs = 86_400_000

/** When the conversation ended: start_time (else created_at) plus duration_seconds; undefined if unknown. */
export function conversationEndMs(event: unknown): number | undefined {
  const data = (event as { data?: Record<string, unknown> } | null)?.data
  const start = data?.start_time ?? data?.created_at
  if (typeof start !== 'string') return undefined
  const check = checkTimestamp(start)
  if (!check.ok) return undefined
  const duration = typeof data?.duration_seconds === 'number' ? data.duration_seconds : 0
  return check.epochMs + duration * 1000
}

/** The date of an ISO 8601 date-time moved by whole days; the rest of the text is kept. */
export function shiftDays(text: string, days: number): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(text)
  if (!match) return text
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + days))
  return date.toISOString().slice(0, 10) + text.slice(10)
}

/** The event moved by whole days so that it ended within the day before nowMs (unchanged if it did already). */
export function movedToLastDay(event: unknown, nowMs: number): { event: unknown; days: number } {
  const endMs = conversationEndMs(event)
  if (endMs === undefined) return { event, days: 0 }
  const days = Math.floor((nowMs - endMs) / dayMs)
  if (days <= 0) return { event, days: 0 }
  return { event: mapDateTimes(event, (text) => shiftDays(text, days)), days }
}
