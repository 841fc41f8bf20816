// One log line per kind of trouble per interval, not one per request: while Kafka is away every
// request fails alike, and a line for each (thousands a second at full load) would flood the log
// and spend the CPU the recovery needs. Metrics still count every one. Pure: the caller gives the
// time. Keys must come from a small, fixed set (a route and a status, an error's kind).

/**
 * Whether a line for `key` may be written at `now`: the number of lines held back for that key
 * since the last one written (to report beside it), or undefined when this one is held back.
 */
export type LogThrottle = (key: string, now: number) => number | undefined

export function logThrottle(intervalMs: number): LogThrottle {
  const lastWritten = new Map<string, { at: number; heldBack: number }>()
  return (key, now) => {
    const last = lastWritten.get(key)
    if (last !== undefined && now - last.at < intervalMs) {
      last.heldBack++
      return undefined
    }
    lastWritten.set(key, { at: now, heldBack: 0 })
    return last?.heldBack ?? 0
  }
}
