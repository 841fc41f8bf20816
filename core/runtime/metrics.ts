import { collectDefaultMetrics, Registry } from 'prom-client'

// One registry per process (ingress, worker), with the default process metrics
// (CPU, memory, event loop lag, GC) under the service's prefix-free standard names.
export { Counter, Gauge, Histogram, type Registry } from 'prom-client'

export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry()
  registry.setDefaultLabels({ service })
  collectDefaultMetrics({ register: registry })
  return registry
}
