import { filters, noBreakdownChosen } from './clickhouse-filters.ts'
import { database } from './panel-sql.ts'

// The latency rollup rows a panel reads over its time range ($__timeFilter on the item's minute),
// from the rollup that answers them fastest and exactly as the minute rollup alone would:
// - agent_latency_hour (migration 0013: one row per agent, source and name per hour) for every hour
//   wholly inside the range, when no campaign or telecom provider is chosen (it has no column for
//   them) and, for a panel over time, when its interval is whole hours (an hour row then falls in
//   the interval its minutes fall in);
// - agent_latency_minute (one row per conversation and minute) for the rest: the partial hours at
//   the range's ends, ranges under an hour, finer intervals, a campaign or provider chosen.
// A month of a million calls: ~9k hour rows and two hours of minute rows instead of ~4.5M minute rows.
// `at` is the row's time (a minute or an hour); per metric the columns mergedHistogram and
// rollupColumn read are there.

const firstWholeHour = `toStartOfHour(toTimeZone($__fromTime, 'UTC') - 1) + 3600`
/**
 * An hour is read from the hour rollup only once it ended this long ago: the worker's keeper
 * recomputes an hour once it ended, within WORKER_HOUR_ROLLUP_INTERVAL_MS (10 s by default; up to
 * 5 minutes keeps it right).
 */
const hourRollupReadDelayMinutes = 5

/**
 * Exclusive: the hour's last minute row (its start + 59 min) must be within the range, and the hour
 * must have ended hourRollupReadDelayMinutes ago (services/worker/write/hour-rollup-keeper.ts); a
 * range ending later reads the hours after it from the minutes.
 */
const endOfWholeHours = `least(toStartOfHour(toTimeZone($__toTime, 'UTC') + 60),
  toStartOfHour(toTimeZone(now(), 'UTC') - INTERVAL ${hourRollupReadDelayMinutes} MINUTE))`

const metricColumns = (metric: string) => [
  `${metric}_count`,
  `${metric}_unflagged_count`,
  ...['unflagged', 'flagged'].flatMap((part) => [
    `${metric}_${part}_buckets`,
    `${metric}_${part}_bucket_counts`,
  ]),
]

/**
 * A subquery (with its parentheses) of the rollup rows in range for these metrics. `overTime`: the
 * panel groups by $__timeInterval(at), so hour rows are read only when the interval is whole hours.
 */
export function latencyRollupRows(metrics: readonly string[], overTime: boolean): string {
  const columns = ['agent_id', 'agent_name', ...metrics.flatMap(metricColumns)].join(', ')
  const useHours = overTime ? `${noBreakdownChosen} AND $__interval_s % 3600 = 0` : noBreakdownChosen
  return `(
    SELECT minute AS at, ${columns}
    FROM ${database}.agent_latency_minute FINAL
    WHERE $__timeFilter(minute)
      AND (NOT (${useHours}) OR minute < ${firstWholeHour} OR minute >= ${endOfWholeHours})
      AND ${filters.latencyRollup}
    UNION ALL
    SELECT hour AS at, ${columns}
    FROM ${database}.agent_latency_hour FINAL
    WHERE (${useHours})
      AND hour >= ${firstWholeHour} AND hour < ${endOfWholeHours}
      AND ${filters.latencyHourRollup}
  )`
}
