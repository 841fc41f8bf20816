import type { Registry } from 'prom-client'
import { createMetricsRegistry } from '../../core/runtime/metrics.ts'
import { createAssemblerMetrics } from '../../services/assembler/assembler-metrics.ts'
import { createIngressMetrics } from '../../services/ingress/ingress-metrics.ts'
import { createDomainMetrics } from '../../services/worker/observe/domain-metrics.ts'
import { createWorkerMetrics } from '../../services/worker/observe/worker-metrics.ts'

// Which metric names a PromQL expression reads, and which names the ingress and the worker
// expose: a dashboard or rule that reads a name nobody exposes shows nothing, silently.
const keywords = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
  'and',
  'or',
  'unless',
  'inf',
  'nan',
])

/** Metric names selected by a PromQL expression (a tokenizer, enough for the queries of this repository). */
export function selectedMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
  const names = new Set<string>()
  for (const match of stripped.matchAll(/(?<![\w.:])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()/g)) {
    const name = match[1]!
    if (!keywords.has(name.toLowerCase())) names.add(name)
  }
  return [...names]
}

/** Every series name the ingress and the worker expose, histograms with their _bucket/_sum/_count. */
export async function exposedMetricNames(): Promise<Set<string>> {
  const registry: Registry = createMetricsRegistry('check')
  createIngressMetrics(registry)
  createWorkerMetrics(registry)
  createAssemblerMetrics(registry)
  createDomainMetrics(registry, { agentAllowlist: [], agentLimit: 1, valueLimit: 1, liveWindowMs: 1 })
  const names = new Set<string>()
  for (const metric of await registry.getMetricsAsJSON()) {
    names.add(metric.name)
    if (String(metric.type) === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix)
  }
  return names
}

/** Series Prometheus itself makes. */
export const prometheusSeries = ['up', 'ALERTS', 'ALERTS_FOR_STATE', 'scrape_duration_seconds']
