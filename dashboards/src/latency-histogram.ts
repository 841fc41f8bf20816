import { includeFlaggedVariable } from './clickhouse-filters.ts'

// Percentiles from the rollups' fixed log-scale histograms (migration 0008): one definition of how a
// merged histogram becomes a latency, for every panel and the overview page.
//
// A rollup row holds, per metric, sorted bucket arrays with their counts (`<prefix>_buckets`,
// `<prefix>_bucket_counts`), unflagged and flagged values apart. Bucket b stands for
// sign(b) * 1.02^(|b| - 2000) seconds (0 for b = 0), within a factor 1.02^0.5 of every value in it,
// so a percentile read here is within 1 % (relative) of quantileExact over the same values: it takes
// the bucket holding the value of rank floor(level * n), the rank quantileExact takes.

/** Relative error bound of a histogram percentile against the exact one (1.02^0.5 - 1). */
export const histogramRelativeError = Math.sqrt(1.02) - 1

const includeFlagged = `\${${includeFlaggedVariable}:raw}`

type HistogramPart = 'buckets' | 'bucket_counts'

/**
 * One part of a row's histogram of a metric (`buckets` or `bucket_counts`): the unflagged values'
 * array, with the flagged ones' appended when $include_flagged (or `flagged`) says 1.
 */
export const histogramArrays = (column: string, suffix: HistogramPart, flagged = includeFlagged) =>
  `if(${flagged} = 1, arrayConcat(${column}_unflagged_${suffix}, ${column}_flagged_${suffix}), ${column}_unflagged_${suffix})`

/**
 * The histogram of one metric's values merged over the rows of a group (sumMap: a tuple of sorted
 * buckets and their counts): unflagged values, and the flagged ones too when $include_flagged says 1.
 * `column` is the rollup's column prefix, e.g. `e2e_latency` (-> e2e_latency_unflagged_buckets, ...).
 * `flagged`: the variable, or a fixed 0 / 1 where there is none.
 */
export function mergedHistogram(column: string, condition?: string, flagged = includeFlagged): string {
  const part = (suffix: HistogramPart) => histogramArrays(column, suffix, flagged)
  return condition === undefined
    ? `sumMap(${part('buckets')}, ${part('bucket_counts')})`
    : `sumMapIf(${part('buckets')}, ${part('bucket_counts')}, ${condition})`
}

/** The value (seconds) a bucket stands for. */
export const bucketValue = (bucket: string) =>
  `multiIf(${bucket} > 0, pow(1.02, ${bucket} - 2000), ${bucket} < 0, -pow(1.02, -${bucket} - 2000), 0)`

/**
 * The percentile `level` (0..1) of a merged histogram (mergedHistogram), in seconds; NaN when it
 * holds no value (as quantileExact over no rows).
 */
export function histogramQuantile(level: number, histogram: string): string {
  if (!(level >= 0 && level <= 1)) throw new Error(`a percentile level is within 0..1, not ${level}`)
  const counts = `(${histogram}).2`
  const n = `arraySum(${counts})`
  // Rank floor(level * n), 0-based, as quantileExact; level 1 asks for rank n, past the last value,
  // where quantileExact answers the largest: rank n - 1.
  const index = `arrayFirstIndex(running -> running > least(toUInt64(floor(${level} * ${n})), ${n} - 1), arrayCumSum(${counts}))`
  return `if(${n} = 0, nan, ${bucketValue(`(${histogram}).1[${index}]`)})`
}

/** The number of values in a merged histogram. */
export const histogramCount = (histogram: string) => `arraySum((${histogram}).2)`
