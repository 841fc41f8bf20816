import type { ConversationRow } from '../transform/table-rows.ts'

// Whether a conversation is happening now, for the metrics that page (docs/alerting.md): a backfill,
// a `replay` of last month or `send --generate` of June 2025 is stored like any conversation, but
// its failed rooms and latencies are not today's and must not page anyone. A conversation is live
// when its time span (start .. start + duration) comes within the window of the worker's clock, on
// either side: a call that just ended after two hours is live, and so is one stamped a little ahead
// by a platform clock that runs fast. Pure: the clock is an argument.
export type ConversationTiming =
  /** Within the window of now: counted by the voice_* metrics the alerts read. */
  | 'live'
  /** Ended before the window: a backfill, a replay, a late re-send. */
  | 'older'
  /** Starts after the window: a clock far ahead, or a made-up date. */
  | 'future'
  /** The payload holds no time at all (key time source `none`): when it happened is unknown. */
  | 'no_time'

export type TimedConversation = Pick<ConversationRow, 'event_time' | 'event_time_source' | 'duration_seconds'>

export function conversationTiming(
  conversation: TimedConversation,
  nowMs: number,
  windowMs: number,
): ConversationTiming {
  // No time of its own: the receipt time would say when the platform sent it, not when it happened
  // (a re-send of old calls without times would page), so it is not counted as now.
  if (conversation.event_time_source === 'none') return 'no_time'
  const start = conversation.event_time
  const duration = conversation.duration_seconds
  const end = duration !== null && Number.isFinite(duration) && duration > 0 ? start + duration * 1000 : start
  if (end < nowMs - windowMs) return 'older'
  if (start > nowMs + windowMs) return 'future'
  return 'live'
}
