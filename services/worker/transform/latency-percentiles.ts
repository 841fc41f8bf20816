// Per-conversation percentiles: linear interpolation between the closest ranks (R type 7, numpy's
// default, ClickHouse's quantileExactInterpolated); null without values.
export function percentile(values: readonly number[], fraction: number): number | null {
  return percentileOfSorted(
    [...values].sort((a, b) => a - b),
    fraction,
  )
}

/** The same of values already sorted ascending: one sort for several percentiles of them. */
export function percentileOfSorted(sorted: readonly number[], fraction: number): number | null {
  if (sorted.length === 0) return null
  const rank = (sorted.length - 1) * fraction
  const below = Math.floor(rank)
  const lower = sorted[below]!
  const upper = sorted[Math.min(below + 1, sorted.length - 1)]!
  return lower + (upper - lower) * (rank - below)
}
