// When `send --generate` dates its conversations: by default within the last day, so the overview's
// "last 24 hours" and the dashboards show them at once; `--from` and `--days` for a history. The
// span ends a quarter of an hour before now, so no conversation (a few minutes long) ends in the
// future.
const hourMs = 3600_000
const endMarginMs = 15 * 60_000

export interface GeneratedSpan {
  /** Start of the first conversation's slot (epoch ms). */
  from: number
  spanHours: number
}

export function generatedSpan(options: { from?: string; days?: string }, nowMs: number): GeneratedSpan {
  const days = Number(options.days ?? 1)
  if (!(Number.isFinite(days) && days > 0))
    throw new Error(`--days must be a positive number, got ${options.days}`)
  const spanMs = days * 24 * hourMs
  const latestEnd = nowMs - endMarginMs
  if (options.from === undefined)
    return { from: nowMs - spanMs, spanHours: (latestEnd - (nowMs - spanMs)) / hourMs }
  const from = Date.parse(options.from)
  if (Number.isNaN(from))
    throw new Error(`--from is not a date: ${options.from} (e.g. 2025-06-01 or 2025-06-01T08:00:00Z)`)
  if (from + spanMs > latestEnd)
    throw new Error(
      `--from ${options.from} with --days ${days} would date conversations after now: give an earlier --from or fewer --days`,
    )
  return { from, spanHours: spanMs / hourMs }
}
