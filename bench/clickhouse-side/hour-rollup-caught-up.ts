import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { hourRollupMetricColumns } from '../../core/clickhouse/latency-hour-rollup.ts'

// The peer's hour rollup is recomputed by a refreshable view (views.sql), every second, for the hours
// that ended, as the worker's keeper does: whoever needs it complete (the benchmark's clock, the
// comparison with the worker) waits for it to hold every turn of an ended hour the minute rollup
// holds, refreshing it meanwhile.
const counted = hourRollupMetricColumns.filter((column) => column.endsWith('_count')).join(' + ')

async function valuesCounted(client: ClickHouseClient, database: string, table: string): Promise<number> {
  const hour = table === 'agent_latency_hour' ? 'hour' : 'toStartOfHour(minute)'
  const result = await client.query({
    query: `SELECT toUInt64(sum(${counted})) AS n FROM ${database}.${table} FINAL
      WHERE ${hour} + INTERVAL 1 HOUR <= now()`,
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  const [row] = await result.json<{ n: number }>()
  return row?.n ?? 0
}

/** Refreshes agent_latency_hour until it counts the latency values agent_latency_minute counts, in the hours that ended. */
export async function awaitHourRollup(client: ClickHouseClient, database: string, timeoutMs = 60_000) {
  const view = `${database}.agent_latency_hour_mv`
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const hour = await valuesCounted(client, database, 'agent_latency_hour')
    const minute = await valuesCounted(client, database, 'agent_latency_minute')
    if (hour === minute) return
    if (Date.now() > deadline)
      throw new Error(
        `agent_latency_hour counts ${hour} latency values, agent_latency_minute ${minute}, after ${timeoutMs} ms`,
      )
    await client.command({ query: `SYSTEM REFRESH VIEW ${view}` })
    await client.command({ query: `SYSTEM WAIT VIEW ${view}` })
  }
}
