import { Counter, Gauge, Histogram, type Registry } from '../../core/runtime/metrics.ts'

// The assembler's Prometheus metrics (docs/metrics.md, "Assembler").
export function createAssemblerMetrics(registry: Registry) {
  return {
    tracesOpen: new Gauge({
      name: 'assembler_traces_open',
      help: 'Traces gathered and not yet emitted (or with spans not yet emitted)',
      registers: [registry],
    }),
    tracesKept: new Gauge({
      name: 'assembler_traces_kept',
      help: 'Emitted traces whose spans are kept for late spans (ASSEMBLER_LATE_WINDOW_SECONDS)',
      registers: [registry],
    }),
    spansHeld: new Gauge({
      name: 'assembler_spans_held',
      help: 'Spans in memory, open and kept traces (cap ASSEMBLER_MAX_SPANS)',
      registers: [registry],
    }),
    spanBytesHeld: new Gauge({
      name: 'assembler_span_bytes_held',
      help: 'What the spans in memory weigh, estimated from their texts (cap ASSEMBLER_MAX_SPAN_MB)',
      registers: [registry],
    }),
    tracesRestored: new Counter({
      name: 'assembler_traces_restored_total',
      help: 'Emitted traces restored on reading a partition afresh: whole (with their spans) or id (a late span is dead-lettered)',
      labelNames: ['kind'],
      registers: [registry],
    }),
    conversationsEmitted: new Counter({
      name: 'assembler_conversations_emitted_total',
      help: 'Conversations produced to the event topic, by mapping and why (root, idle, cap, late)',
      labelNames: ['mapping', 'reason'],
      registers: [registry],
    }),
    lateSpans: new Counter({
      name: 'assembler_late_spans_total',
      help: 'Spans arriving after their trace was emitted: redelivered (within the window) or dead_lettered (after it)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    deadLetters: new Counter({
      name: 'assembler_dead_letters_total',
      help: 'Messages written to the assembler dead-letter topic, by reason (late, unmapped, undecodable)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    emitFailures: new Counter({
      name: 'assembler_emit_failures_total',
      help: 'Emissions that failed (encode, registry or Kafka) and are tried again',
      registers: [registry],
    }),
    emitLatency: new Histogram({
      name: 'assembler_emit_latency_seconds',
      help: 'From the arrival of a trace root span to the acknowledgement of its conversations by Kafka',
      buckets: [0.5, 1, 2, 2.5, 3, 4, 5, 7.5, 10, 30, 60],
      registers: [registry],
    }),
  }
}
export type AssemblerMetrics = ReturnType<typeof createAssemblerMetrics>
