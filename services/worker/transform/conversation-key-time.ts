// The time a conversation's rows are keyed, partitioned and aged by (event_time). It must be the
// same for every delivery of a conversation, or a re-delivery lands under another key and is
// stored twice: so it comes from the payload only, never from the time of receipt. start_time,
// else created_at, else the earliest timestamp the payload holds (agent_joined_at, the history
// items' times), else a fixed time (1970-01-01). Where it came from is stored beside it.
export type KeyTimeSource = 'start_time' | 'created_at' | 'earliest_timestamp' | 'none'

export interface KeyTime {
  ms: number
  source: KeyTimeSource
}

/** What a conversation holds no time at all is keyed by: the Unix epoch. */
export const keyTimeFallbackMs = 0

export function conversationKeyTime(times: {
  startTime: number | null
  createdAt: number | null
  /** Every other timestamp of the payload that says when the conversation happened. */
  others: ReadonlyArray<number | null>
}): KeyTime {
  if (times.startTime !== null) return { ms: times.startTime, source: 'start_time' }
  if (times.createdAt !== null) return { ms: times.createdAt, source: 'created_at' }
  let earliest: number | null = null
  for (const ms of times.others) if (ms !== null && (earliest === null || ms < earliest)) earliest = ms
  if (earliest !== null) return { ms: earliest, source: 'earliest_timestamp' }
  return { ms: keyTimeFallbackMs, source: 'none' }
}
