import { Counter, Gauge, Histogram, type Registry } from '../../../core/runtime/metrics.ts'
import type { StallStatus } from './progress-watch.ts'

// Everything the worker counts. Dashboards and alerts read these names. `stall` is read at each
// scrape (progress-watch.ts); without it (tests listing names) the stall gauges read 0.
export function createWorkerMetrics(
  registry: Registry,
  stall: () => StallStatus | undefined = () => undefined,
) {
  const metrics = {
    stalled: new Gauge({
      name: 'worker_stalled',
      help: '1 while the worker holds batches and committed nothing for longer than WORKER_STALL_SECONDS (what /healthz answers 503 for), else 0',
      registers: [registry],
      collect() {
        this.set(stall()?.stalled ? 1 : 0)
      },
    }),
    secondsWithoutProgress: new Gauge({
      name: 'worker_seconds_without_progress',
      help: 'Seconds since the last commit while the worker holds batches (0 when idle)',
      registers: [registry],
      collect() {
        this.set(stall()?.secondsWithoutProgress ?? 0)
      },
    }),
    messagesConsumed: new Counter({
      name: 'worker_messages_consumed_total',
      help: 'Kafka messages consumed, by outcome (inserted, dead_lettered)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    rowsInserted: new Counter({
      name: 'worker_rows_inserted_total',
      help: 'Rows acknowledged by ClickHouse, by table (agent_latency_feed feeds the latency rollup)',
      labelNames: ['table'] as const,
      registers: [registry],
    }),
    insertDuration: new Histogram({
      name: 'worker_insert_duration_seconds',
      help: 'Time of one acknowledged ClickHouse insert, by table',
      labelNames: ['table'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    batchMessages: new Histogram({
      name: 'worker_batch_messages',
      help: 'Messages per ClickHouse write (one write covers the partition batches of a fetch)',
      buckets: [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000],
      registers: [registry],
    }),
    batchDuration: new Histogram({
      name: 'worker_batch_duration_seconds',
      help: 'Time from receiving a partition batch to committing its offsets',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    deadLettered: new Counter({
      name: 'worker_dead_letter_total',
      help: 'Messages sent to the dead-letter topic, by reason',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    retries: new Counter({
      name: 'worker_retries_total',
      help: 'Retried operations, by what failed (clickhouse_insert, schema_registry, dead_letter_publish)',
      labelNames: ['operation'] as const,
      registers: [registry],
    }),
    consumerLag: new Gauge({
      name: 'worker_consumer_lag',
      help: 'Messages behind the high watermark after the last commit, by topic and partition',
      labelNames: ['topic', 'partition'] as const,
      registers: [registry],
    }),
    lastCommit: new Gauge({
      name: 'worker_last_commit_timestamp_seconds',
      help: 'When offsets were last committed (after ClickHouse acknowledged), Unix seconds',
      registers: [registry],
    }),
    batchesInFlight: new Gauge({
      name: 'worker_batches_in_flight',
      help: 'Partition batches received and not yet committed',
      registers: [registry],
    }),
    clickhouseFailing: new Gauge({
      name: 'worker_clickhouse_failing',
      help: '1 while inserts fail and the consumer is paused retrying, else 0',
      registers: [registry],
      collect() {
        this.set(stall()?.failing.includes('clickhouse') ? 1 : 0)
      },
    }),
    writeSplits: new Counter({
      name: 'worker_clickhouse_write_splits_total',
      help: 'ClickHouse writes refused for their shape (too many partitions, rows, bytes) or data and written again in smaller writes, by reason (shape, data)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    hourRollupPasses: new Counter({
      name: 'worker_hour_rollup_passes_total',
      help: 'Passes of the hour-rollup keeper that ended (each took in the ended hours of the writes that returned before it began)',
      registers: [registry],
    }),
    hourRollupRecomputed: new Counter({
      name: 'worker_hour_rollup_recomputed_hours_total',
      help: 'Agent-hours of the hour rollup recomputed by the keeper (their minute rows changed since their last recompute)',
      registers: [registry],
    }),
    hourRollupPassSeconds: new Histogram({
      name: 'worker_hour_rollup_pass_seconds',
      help: 'Time a pass of the hour-rollup keeper took (its scan and recompute), failed passes left out',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    hourRollupPassFailures: new Counter({
      name: 'worker_hour_rollup_pass_failures_total',
      help: 'Passes of the hour-rollup keeper that failed (ClickHouse away): the next pass takes their hours in',
      registers: [registry],
    }),
    schemaRegistryFailing: new Gauge({
      name: 'worker_schema_registry_failing',
      help: '1 while the schema registry cannot give the schema of a message (down, 5xx, 404 from a wrong path or an empty registry) and its partition waits, else 0',
      registers: [registry],
      collect() {
        this.set(stall()?.failing.includes('schema_registry') ? 1 : 0)
      },
    }),
    deadLetterOversized: new Counter({
      name: 'worker_dead_letter_oversized_total',
      help: 'Dead letters larger than the DLQ topic takes, by what was stored instead (truncated: the value cut to fit; reference: only the error and the original topic/partition/offset; none: not even that, logged)',
      labelNames: ['stored'] as const,
      registers: [registry],
    }),
    eventAge: new Histogram({
      name: 'worker_event_age_seconds',
      help: 'Freshness: from the ingress receiving an event to ClickHouse acknowledging its rows',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600],
      registers: [registry],
    }),
  }
  // Every label at 0 from the start, so that increase() sees the first oversized dead letter.
  for (const stored of ['truncated', 'reference', 'none'] as const)
    metrics.deadLetterOversized.inc({ stored }, 0)
  return metrics
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>
