// The time options of `versions`: --window as a duration (`36h`, `7d`), --since as an ISO 8601 time
// or a duration back from now. Pure (now is given).

const units: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `90m`, `36h`, `7d` in ms; undefined for anything else. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([mhd])$/.exec(text.trim())
  return match ? Number(match[1]) * units[match[2]!]! : undefined
}

/** --since: a duration back from `nowMs`, or an ISO 8601 time (a date alone: its midnight UTC). */
export function sinceMs(text: string, nowMs: number): number {
  const back = durationMs(text)
  if (back !== undefined) return nowMs - back
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text.trim()) ? Date.parse(text.trim()) : Number.NaN
  if (Number.isNaN(ms)) throw new Error(`--since: not an ISO 8601 time nor a duration such as 7d: ${text}`)
  return ms
}
