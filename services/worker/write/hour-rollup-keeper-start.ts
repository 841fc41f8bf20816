import type { ClickHouseClient } from '../../../core/clickhouse/clickhouse.ts'
import { dirtyLatencyHours, recomputeLatencyHours } from '../../../core/clickhouse/latency-hour-rollup.ts'
import type { Logger } from '../../../core/runtime/logger.ts'
import type { Config } from '../../../core/settings/env.ts'
import type { WorkerMetrics } from '../observe/worker-metrics.ts'
import { HourRollupKeeper, type HourRollupKeeperDeps } from './hour-rollup-keeper.ts'

// The worker's hour-rollup keeper on its ClickHouse: passes reported in metrics and logs.

/** A keeper of this database's hour rollup (not started: tests call its passes themselves). */
export function clickHouseHourRollupKeeper(
  clickhouse: ClickHouseClient,
  database: string,
  intervalMs: number,
  onPass: HourRollupKeeperDeps['onPass'] = () => {},
): HourRollupKeeper {
  return new HourRollupKeeper({
    serverNow: async () => {
      const result = await clickhouse.query({
        query: 'SELECT toUnixTimestamp64Milli(now64(3)) AS now',
        format: 'JSONEachRow',
        clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
      })
      return (await result.json<{ now: number }>())[0]!.now
    },
    dirtyHours: (sinceMs) => dirtyLatencyHours(clickhouse, database, sinceMs),
    recompute: (hours) => recomputeLatencyHours(clickhouse, database, hours),
    intervalMs,
    onPass,
  })
}

export function startHourRollupKeeper(
  clickhouse: ClickHouseClient,
  config: Pick<Config, 'CLICKHOUSE_DATABASE' | 'WORKER_HOUR_ROLLUP_INTERVAL_MS'>,
  metrics: WorkerMetrics,
  logger: Logger,
): HourRollupKeeper {
  const keeper = clickHouseHourRollupKeeper(
    clickhouse,
    config.CLICKHOUSE_DATABASE,
    config.WORKER_HOUR_ROLLUP_INTERVAL_MS,
    (outcome) => {
      if ('hours' in outcome) {
        metrics.hourRollupPasses.inc()
        metrics.hourRollupRecomputed.inc(outcome.hours)
        metrics.hourRollupPassSeconds.observe(outcome.seconds)
        if (outcome.hours > 0) logger.debug({ hours: outcome.hours }, 'hour rollup: agent-hours recomputed')
      } else {
        metrics.hourRollupPassFailures.inc()
        logger.warn(
          { error: (outcome.error as Error).message },
          'hour rollup: pass failed, the next one takes its hours in',
        )
      }
    },
  )
  keeper.start()
  return keeper
}
