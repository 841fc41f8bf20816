import { createMetricsRegistry, type Registry } from '../../core/runtime/metrics.ts'
import {
  createDomainMetrics,
  latencyMetrics,
  newConversations,
  recordConversations,
} from '../../services/worker/observe/domain-metrics.ts'
import type { Sent } from './produce-events.ts'
import { expectedRows } from './stored-rows.ts'

// A worker's metrics as a test reads them: from /metrics, from its registry, and what the domain
// counters should say when every conversation sent is counted once.

/** The value of the first series of a worker's /metrics that starts with `series` (0 when absent). */
export async function metricValue(metricsUrl: string, series: string): Promise<number> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text()
  const line = text.split('\n').find((candidate) => candidate.startsWith(series))
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0
}

/** The sum of every series of a metric (name prefix, e.g. `worker_rows_inserted_total{`) at a /metrics URL; 0 when unreachable. */
export async function metricSum(metricsUrl: string, prefix: string): Promise<number> {
  try {
    const text = await (await fetch(`${metricsUrl}/metrics`)).text()
    return text
      .split('\n')
      .filter((line) => line.startsWith(prefix))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0)
  } catch {
    return 0
  }
}

/**
 * The sum of the series of one metric in in-process registries (a histogram: its observations),
 * optionally only those with the given labels.
 */
export async function registrySum(
  registries: readonly Registry[],
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  let sum = 0
  for (const registry of registries) {
    const metric = registry.getSingleMetric(name)
    if (!metric) continue
    const series = (await metric.get()).values as {
      value: number
      metricName?: string
      labels: Record<string, unknown>
    }[]
    for (const value of series) {
      // A histogram's series name their metric (buckets, _sum, _count); a counter's do not.
      if (value.metricName !== undefined && value.metricName !== `${name}_count`) continue
      if (Object.entries(labels).every(([label, wanted]) => value.labels[label] === wanted))
        sum += value.value
    }
  }
  return sum
}

export const domainMetricNames = [
  'voice_conversations_total',
  'voice_conversations_backfilled_total',
  'voice_failed_rooms_total',
  'voice_test_results_total',
  'voice_campaign_conversations_total',
  'voice_metric_flags_total',
  ...Object.values(latencyMetrics),
] as const

/** Each domain metric's total over the workers' registries (labels summed away). */
export async function domainTotals(registries: readonly Registry[]): Promise<Record<string, number>> {
  const totals: Record<string, number> = {}
  for (const name of domainMetricNames) totals[name] = await registrySum(registries, name)
  return totals
}

/**
 * Where generated conversations are live for the worker's default window (METRICS_LIVE_WINDOW_SECONDS,
 * 1 hour) so that they count in every domain metric: starts spread over the hour from 45 minutes ago,
 * which stays within the window for the minutes a test runs.
 */
export const liveSpan = () => ({ from: Date.now() - 45 * 60_000, spanHours: 1 })
const defaultLiveWindowMs = 3600_000

/** The domain metrics' totals when every conversation of `sent` is counted exactly once. */
export async function expectedDomainTotals(sent: readonly Sent[]): Promise<Record<string, number>> {
  const registry = createMetricsRegistry('expected')
  const metrics = createDomainMetrics(registry, {
    agentAllowlist: [],
    agentLimit: 1000,
    valueLimit: 1000,
    liveWindowMs: defaultLiveWindowMs,
  })
  const once = newConversations(expectedRows(sent), new Set())
  recordConversations(metrics, once.conversations, once.items)
  return domainTotals([registry])
}
