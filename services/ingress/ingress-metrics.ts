import { Counter, Gauge, Histogram, type Registry } from '../../core/runtime/metrics.ts'

// Everything the ingress counts. `outcome` of an event: accepted (event topic), quarantined
// (misfits the schema), other (another event kind), rejected (answered 4xx), refused (503).
export function createIngressMetrics(
  registry: Registry,
  queue: { queuedBytes: number; queuedMessages: number } = { queuedBytes: 0, queuedMessages: 0 },
) {
  return {
    httpRequests: new Counter({
      name: 'ingress_http_requests_total',
      help: 'HTTP requests answered, by route, method and status code',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
    }),
    events: new Counter({
      name: 'ingress_events_total',
      help: 'Webhook deliveries by outcome (accepted, quarantined, other, rejected, refused) and reason',
      labelNames: ['outcome', 'reason'] as const,
      registers: [registry],
    }),
    otlpSpans: new Counter({
      name: 'ingress_otlp_spans_total',
      help: 'OTLP spans received on /v1/traces by outcome: accepted (in Kafka, answered 200), rejected (invalid ids: partial success), refused (answered 503; the exporter retries)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    publishDuration: new Histogram({
      name: 'ingress_publish_duration_seconds',
      help: 'Time from handing an event (or all span messages of an OTLP request) to the producer to the Kafka acknowledgement, by topic',
      labelNames: ['topic'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    queuedBytes: new Gauge({
      name: 'ingress_publish_queue_bytes',
      help: 'Bytes of events waiting for Kafka (bounded by INGRESS_QUEUE_LIMIT_BYTES)',
      registers: [registry],
      collect() {
        this.set(queue.queuedBytes)
      },
    }),
    queuedMessages: new Gauge({
      name: 'ingress_publish_queue_messages',
      help: 'Events waiting for Kafka',
      registers: [registry],
      collect() {
        this.set(queue.queuedMessages)
      },
    }),
    inFlight: new Gauge({
      name: 'ingress_in_flight_requests',
      help: 'Webhook requests being handled right now',
      registers: [registry],
    }),
  }
}

export type IngressMetrics = ReturnType<typeof createIngressMetrics>
