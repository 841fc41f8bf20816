import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { type ClickHouseClient, createClickHouse } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { conversationTables } from '../../core/clickhouse/clickhouse-retention.ts'
import { latencyMetrics as hourRollupMetrics } from '../../core/clickhouse/latency-metrics.ts'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { createEventCodec, createSchemaRegistry, type EventCodec } from '../../core/event/event-codec.ts'
import { type AvroRecord, toAvroRecord } from '../../core/event/event-record.ts'
import { withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import { committedOffsets } from '../../core/kafka/kafka-offsets.ts'
import { type BatchProducer, createBatchProducer } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { createLogger, type Logger } from '../../core/runtime/logger.ts'
import { createMetricsRegistry, type Registry } from '../../core/runtime/metrics.ts'
import { type Config, loadConfig } from '../../core/settings/env.ts'
import {
  createDomainMetrics,
  latencyMetrics,
  newConversations,
  recordConversations,
} from '../../services/worker/observe/domain-metrics.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import {
  emptyTableRows,
  type TableName,
  type TableRows,
  tableColumns,
  tableNames,
} from '../../services/worker/transform/table-rows.ts'
import { type RunningWorker, startWorker, type WorkerOptions } from '../../services/worker/worker.ts'
import { kafkaBrokers, schemaRegistryUrl } from '../stack/servers.ts'
import { createTestTopic, endOffsets, testKafka } from '../support/kafka-test-helpers.ts'

// Shared by the worker's integration tests: a temp embedded ClickHouse, worker configuration
// pointing at throwaway topics, producing events the way the ingress does, and reading tables.
export const database = 'voice_analytics'

export function tempDataDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `va-${prefix}-`))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

export function embeddedClickHouse(dataDir: string): ClickHouseClient {
  return createClickHouse({
    CLICKHOUSE_DATA_DIR: dataDir,
    CLICKHOUSE_USER: 'default',
    CLICKHOUSE_PASSWORD: '',
  })
}

/**
 * An embedded engine with the migrated database, for one test file: opened before its tests, closed
 * and removed after them (`client` is set once the file's first hook ran).
 */
export function migratedEmbeddedDatabase(prefix: string): { client: ClickHouseClient } {
  const data = tempDataDir(prefix)
  const opened = {} as { client: ClickHouseClient }
  beforeAll(async () => {
    opened.client = embeddedClickHouse(data.dir)
    await opened.client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` })
    await runMigrations(opened.client, database)
  })
  afterAll(async () => {
    await opened.client?.close()
    data.remove()
  })
  return opened
}

export function workerEnv(
  topic: string,
  dataDir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    KAFKA_BROKERS: kafkaBrokers(),
    SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
    CLICKHOUSE_DATA_DIR: dataDir,
    WORKER_TOPIC: topic,
    WORKER_DLQ_TOPIC: `${topic}.dlq`,
    WORKER_GROUP_ID: `va-test-worker-${randomUUID()}`,
    WORKER_METRICS_PORT: '0',
    // The hour rollup's keeper twice a second: a test sees an ended hour taken in at once, not in 10 s.
    WORKER_HOUR_ROLLUP_INTERVAL_MS: '500',
    LOG_LEVEL: 'warn',
    ...extra,
  }
}

export function workerConfig(topic: string, dataDir: string, extra: Record<string, string> = {}): Config {
  return loadConfig(workerEnv(topic, dataDir, extra))
}

export const testLogger = () => createLogger('worker-test', process.env.TEST_LOG_LEVEL ?? 'warn')

export async function testCodec(): Promise<EventCodec> {
  return createEventCodec(createSchemaRegistry(schemaRegistryUrl()))
}

export interface Sent {
  event: ConversationCompleteEvent
  record: AvroRecord
}

/** Publishes events as the ingress does: key session_id, value Avro of toAvroRecord. */
export async function produceEvents(
  producer: BatchProducer,
  codec: EventCodec,
  topic: string,
  events: readonly ConversationCompleteEvent[],
  source = 'prod',
  receivedAt: (index: number) => number = () => Date.now(),
): Promise<Sent[]> {
  const sent: Sent[] = events.map((event, index) => ({
    event,
    record: toAvroRecord(event, { source, receivedAt: receivedAt(index) }),
  }))
  for (let start = 0; start < sent.length; start += 200) {
    const chunk = sent.slice(start, start + 200)
    const values = await Promise.all(chunk.map(({ record }) => codec.encode(record)))
    await producer.sendBatch([
      {
        topic,
        messages: chunk.map(({ event }, index) => ({ key: event.data.session_id, value: values[index]! })),
      },
    ])
  }
  return sent
}

/** The ingress's producer (idempotent, acks=all), connected to the broker. */
export async function connectedProducer(kafka: KafkaSettings): Promise<BatchProducer> {
  const producer = createBatchProducer(kafka)
  await producer.connect([])
  return producer
}

export async function queryRows<T = Record<string, unknown>>(
  client: ClickHouseClient,
  query: string,
  params: Record<string, unknown> = {},
): Promise<T[]> {
  const result = await client.query({
    query,
    query_params: params,
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  return result.json<T>()
}

export async function countFinal(client: ClickHouseClient, table: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(client, `SELECT count() AS n FROM ${database}.${table} FINAL`)
  return Number(row?.n ?? 0)
}

export async function waitFor<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 120_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: T = await probe()
  while (!done(last)) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(last)}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
    last = await probe()
  }
  return last
}

/** The rows the transform makes of what was sent (delivery-dependent columns left out). */
export function expectedRows(sent: readonly Sent[]): TableRows {
  const all = emptyTableRows()
  for (const { record } of sent) {
    const rows = conversationRows(record, { topic: '', partition: 0, offset: 0, timestampMs: 0 })
    for (const table of tableNames) (all[table] as unknown[]).push(...(rows[table] as unknown[]))
  }
  return all
}

/**
 * A table read back in the form the row builders produce: DateTime64 as epoch ms, DateTime as
 * epoch seconds, 64-bit integers as numbers.
 */
export async function readTable(
  client: ClickHouseClient,
  table: TableName | 'agent_latency_minute' | 'conversation_latency',
  columns: readonly string[],
  orderBy: string,
): Promise<Record<string, unknown>[]> {
  const types = await queryRows<{ name: string; type: string }>(
    client,
    `SELECT name, type FROM system.columns WHERE database = '${database}' AND table = '${table}'`,
  )
  const typeOf = new Map(types.map((row) => [row.name, row.type]))
  const select = columns.map((column) => {
    const type = typeOf.get(column) ?? ''
    if (type.includes('DateTime64')) return `toUnixTimestamp64Milli(${column}) AS ${column}`
    if (type.includes('DateTime')) return `toUnixTimestamp(${column}) AS ${column}`
    return column
  })
  return queryRows(client, `SELECT ${select.join(', ')} FROM ${database}.${table} FINAL ORDER BY ${orderBy}`)
}

/** Messages a consumer group has committed on a topic, over all partitions. */
export async function committedTotal(kafka: KafkaSettings, groupId: string, topic: string): Promise<number> {
  const committed = await withKafkaAdmin(kafka, (admin) => committedOffsets(admin, groupId, topic))
  return [...committed.values()].reduce((sum, offset) => sum + Number(offset), 0)
}

/** Rows per table (FINAL) equal to what the transform makes of `sent`: nothing lost, nothing doubled. */
export async function expectExactCounts(
  client: ClickHouseClient,
  sent: readonly Sent[],
  expect: (actual: number, table: string) => { toBe: (expected: number) => void },
): Promise<void> {
  const expected = expectedRows(sent)
  for (const table of conversationTables)
    expect(await countFinal(client, table), table).toBe(expected[table].length)
  const rollupFeeds = {
    agent_latency_minute: 'agent_latency_feed',
    conversation_latency: 'conversation_latency_feed',
  } as const
  for (const table of ['agent_latency_minute', 'conversation_latency'] as const)
    expect(await countFinal(client, table), table).toBe(expected[rollupFeeds[table]].length)
  // The hour rollup takes in the ended hours within the worker's keeper interval (10 s), off the write.
  const mismatches = () => hourRollupMismatches(client, { endedHours: true })
  expect(
    await waitFor(
      mismatches,
      (count) => count === 0,
      60_000,
      'the hour rollup to take in what was written',
    ).catch(mismatches),
    'agent_latency_hour groups unlike agent_latency_minute merged',
  ).toBe(0)
  const [rollup] = await queryRows<{ samples: number }>(
    client,
    `SELECT sum(e2e_latency_count) AS samples FROM ${database}.agent_latency_minute FINAL`,
  )
  expect(rollup?.samples ?? 0, 'rollup e2e samples').toBe(
    expected.agent_latency_feed.reduce(
      (sum, row) => sum + row.e2e_latency_unflagged.length + row.e2e_latency_flagged.length,
      0,
    ),
  )
}

/**
 * The hour rollup against agent_latency_minute FINAL merged per agent, hour, source and name: the
 * groups that differ in any metric's counts, sums (to 1e-9 s) or histograms, or exist on one side only.
 * `endedHours`: only the hours that ended (the worker's keeper holds a running hour until it ended;
 * panels read it from the minute rollup meanwhile).
 */
export async function hourRollupMismatches(
  client: ClickHouseClient,
  { endedHours = false }: { endedHours?: boolean } = {},
): Promise<number> {
  const ended = endedHours ? 'WHERE hour + INTERVAL 1 HOUR <= now()' : ''
  const metrics = hourRollupMetrics.flatMap((metric) =>
    ['unflagged', 'flagged'].map((part) => `${metric}_${part}`),
  )
  const stored = metrics.flatMap((prefix) => [
    `${prefix}_count AS ${prefix}_c`,
    `round(${prefix}_sum, 9) AS ${prefix}_s`,
    `${prefix}_buckets AS ${prefix}_b`,
    `${prefix}_bucket_counts AS ${prefix}_k`,
  ])
  const merged = metrics.flatMap((prefix) => [
    `toUInt32(sum(${prefix}_count)) AS ${prefix}_c`,
    `round(sum(${prefix}_sum), 9) AS ${prefix}_s`,
    `(sumMap(${prefix}_buckets, ${prefix}_bucket_counts) AS ${prefix}_h).1 AS ${prefix}_b`,
    `arrayMap(v -> toUInt32(v), ${prefix}_h.2) AS ${prefix}_k`,
  ])
  const fromHours = `SELECT agent_id, hour, source, ifNull(agent_name, '') AS name, ${stored.join(', ')}
      FROM ${database}.agent_latency_hour FINAL ${ended}`
  const fromMinutes = `SELECT agent_id, toStartOfHour(minute) AS hour, source, ifNull(agent_name, '') AS name,
        ${merged.join(', ')}
      FROM ${database}.agent_latency_minute FINAL ${ended} GROUP BY agent_id, hour, source, name`
  const [row] = await queryRows<{ mismatches: number }>(
    client,
    `SELECT (SELECT count() FROM (${fromHours} EXCEPT ${fromMinutes}))
        + (SELECT count() FROM (${fromMinutes} EXCEPT ${fromHours})) AS mismatches`,
  )
  return Number(row?.mismatches ?? 0)
}

/** The value of the first series of a worker's /metrics that starts with `series` (0 when absent). */
export async function metricValue(metricsUrl: string, series: string): Promise<number> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text()
  const line = text.split('\n').find((candidate) => candidate.startsWith(series))
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0
}

/** Messages in a topic over all partitions (e.g. a DLQ that must stay empty). */
export async function topicMessageCount(kafka: KafkaSettings, topic: string): Promise<number> {
  return [...(await endOffsets(kafka, topic)).values()].reduce((sum, offset) => sum + Number(offset), 0)
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

/** Rows and distinct sessions in `conversations` (FINAL): equal when no conversation is stored twice. */
export async function storedConversations(
  client: ClickHouseClient,
): Promise<{ rows: number; sessions: number }> {
  const [row] = await queryRows<{ rows: number; sessions: number }>(
    client,
    `SELECT count() AS rows, uniqExact(session_id) AS sessions FROM ${database}.conversations FINAL`,
  )
  return { rows: Number(row?.rows ?? 0), sessions: Number(row?.sessions ?? 0) }
}

/**
 * After the workers stopped: every table (FINAL) holds exactly what the transform makes of `sent`,
 * and no conversation is stored twice (under two keys). Opens the data directory for the check.
 */
export async function expectStoredExactlyOnce(
  dataDir: string,
  sent: readonly Sent[],
  expect: (
    actual: unknown,
    what?: string,
  ) => { toBe: (expected: number) => void; toEqual: (expected: unknown) => void },
): Promise<void> {
  const sessions = new Set(sent.map(({ event }) => event.data.session_id)).size
  const clickhouse = embeddedClickHouse(dataDir)
  try {
    await expectExactCounts(clickhouse, sent, expect)
    expect(await storedConversations(clickhouse), 'conversations stored').toEqual({
      rows: sessions,
      sessions,
    })
  } finally {
    await clickhouse.close()
  }
}

const rowOrder: Record<Exclude<TableName, 'agent_latency_feed' | 'conversation_latency_feed'>, string> = {
  conversations: 'session_id',
  conversation_items: 'session_id, item_index',
  tool_calls: 'session_id, call_index',
  handoffs: 'session_id, item_index',
  test_results: 'session_id',
  campaign_items: 'session_id',
}
const deliveryColumns = new Set(['kafka_topic', 'kafka_partition', 'kafka_offset'])
const rollupMetrics = [
  'e2e_latency',
  'llm_node_ttft',
  'tts_node_ttfb',
  'transcription_delay',
  'end_of_turn_delay',
]

/**
 * Every table (FINAL) holds exactly the rows the transform makes of `sent`, values equal (the
 * delivery's offset aside), and the rollup exactly their per-minute counts and sums.
 */
export async function expectStoredRowsEqual(
  client: ClickHouseClient,
  sent: readonly Sent[],
  expect: (actual: unknown, message: string) => { toEqual: (expected: unknown) => void },
): Promise<void> {
  const expected = expectedRows(sent)
  for (const table of Object.keys(rowOrder) as Array<keyof typeof rowOrder>) {
    const columns = tableColumns[table].filter((column) => !deliveryColumns.has(column))
    const keys = rowOrder[table].split(', ')
    const sortKey = (row: Record<string, unknown>) =>
      keys.map((key) => String(row[key]).padStart(12, '0')).join('|')
    const want = (expected[table] as unknown as Record<string, unknown>[])
      .map((row) => Object.fromEntries(columns.map((column) => [column, row[column]])))
      .sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1))
    const got = await readTable(client, table, columns, rowOrder[table])
    expect(
      got.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1)),
      table,
    ).toEqual(want)
  }
  const rollupColumns = [
    'agent_id',
    'minute',
    'session_id',
    'version',
    ...rollupMetrics.map((name) => `${name}_count`),
  ]
  const rollup = await readTable(
    client,
    'agent_latency_minute',
    rollupColumns,
    'agent_id, minute, session_id',
  )
  const wantRollup = expected.agent_latency_feed
    .map((row) => ({
      agent_id: row.agent_id,
      minute: row.minute,
      session_id: row.session_id,
      version: row.version,
      ...Object.fromEntries(
        rollupMetrics.map((name) => [
          `${name}_count`,
          row[`${name as 'e2e_latency'}_unflagged`].length + row[`${name as 'e2e_latency'}_flagged`].length,
        ]),
      ),
    }))
    .sort((a, b) =>
      a.agent_id !== b.agent_id
        ? a.agent_id < b.agent_id
          ? -1
          : 1
        : a.minute !== b.minute
          ? a.minute - b.minute
          : a.session_id < b.session_id
            ? -1
            : 1,
    )
  expect(rollup, 'agent_latency_minute').toEqual(wantRollup)
  // The per-conversation rollup: one row per conversation, its breakdown keys, and its turns'
  // e2e latencies as counts, maxima and histograms whose counts add up (migration 0008).
  const conversationRollup = await readTable(
    client,
    'conversation_latency',
    [
      ...conversationLatencyKeys,
      'e2e_latency_unflagged_count',
      'e2e_latency_unflagged_max',
      'e2e_latency_flagged_count',
      'e2e_latency_flagged_max',
      'arraySum(e2e_latency_unflagged_bucket_counts) AS unflagged_in_buckets',
      'arraySum(e2e_latency_flagged_bucket_counts) AS flagged_in_buckets',
    ],
    'session_id',
  )
  const largest = (values: number[]) => (values.length === 0 ? 0 : Math.max(...values))
  const wantConversations = [...expected.conversation_latency_feed]
    .sort((a, b) => (a.session_id < b.session_id ? -1 : 1))
    .map((row) => ({
      ...Object.fromEntries(conversationLatencyKeys.map((column) => [column, row[column]])),
      is_test: row.is_test === 1,
      failed: row.failed === 1,
      e2e_latency_unflagged_count: row.e2e_latency_unflagged.length,
      e2e_latency_unflagged_max: largest(row.e2e_latency_unflagged),
      e2e_latency_flagged_count: row.e2e_latency_flagged.length,
      e2e_latency_flagged_max: largest(row.e2e_latency_flagged),
      unflagged_in_buckets: row.e2e_latency_unflagged.length,
      flagged_in_buckets: row.e2e_latency_flagged.length,
    }))
  expect(conversationRollup, 'conversation_latency').toEqual(wantConversations)
}

const conversationLatencyKeys = [
  'session_id',
  'agent_id',
  'event_time',
  'version',
  'campaign_id',
  'telecom_provider',
  'test_run_id',
  'is_test',
  'status',
  'room_failed',
  'failed',
] as const

/** What a worker integration test sets up before it starts a worker, and takes down after. */
export interface WorkerFixture {
  kafka: KafkaSettings
  /** A throwaway topic of its own (its DLQ: `${topic}.dlq`). */
  topic: string
  /** The consumer group of the workers it starts, unless a test names another. */
  groupId: string
  codec: EventCodec
  producer: BatchProducer
  /** The test's embedded ClickHouse, in a temp data directory; workers share it. */
  clickhouse: ClickHouseClient
  dataDir: string
  /** Worker configuration for this topic, data directory and group; `extra` overrides. */
  config(extra?: Record<string, string>): Config
  /** Starts a worker on the fixture's ClickHouse (stopped by `stop()` unless stopped before). */
  /** A worker on the fixture's topic; its log lines go to `logger` (default: the test logger). */
  startWorker(
    extra?: Record<string, string>,
    options?: WorkerOptions,
    logger?: Logger,
  ): Promise<RunningWorker>
  /** Stops every worker it started, the producer and ClickHouse; removes the data directory. */
  stop(): Promise<void>
}

/**
 * The setup every worker integration test repeats: a topic of `partitions` partitions named
 * after `name`, the group `va-test-${name}-${topic}`, a producer, the codec and an embedded
 * ClickHouse in a temp data directory. Call it in beforeAll and `stop()` in afterAll.
 */
export async function startWorkerFixture(name: string, partitions: number): Promise<WorkerFixture> {
  const data = tempDataDir(name)
  const workers: RunningWorker[] = []
  let producer: BatchProducer | undefined
  let clickhouse: ClickHouseClient | undefined
  const stop = async () => {
    for (const worker of workers) await worker.stop()
    await producer?.disconnect()
    await clickhouse?.close()
    data.remove()
  }
  try {
    const kafka = testKafka()
    const topic = await createTestTopic(kafka, name, partitions)
    const groupId = `va-test-${name}-${topic}`
    const codec = await testCodec()
    producer = await connectedProducer(kafka)
    clickhouse = embeddedClickHouse(data.dir)
    const config = (extra: Record<string, string> = {}) =>
      workerConfig(topic, data.dir, { WORKER_GROUP_ID: groupId, ...extra })
    const fixture: WorkerFixture = {
      kafka,
      topic,
      groupId,
      codec,
      producer,
      clickhouse,
      dataDir: data.dir,
      config,
      async startWorker(extra = {}, options = {}, logger = testLogger()) {
        const worker = await startWorker(config(extra), logger, {
          clickhouse: fixture.clickhouse,
          ...options,
        })
        // Stopped once, whether by the test or by the fixture's stop().
        let stopped: Promise<void> | undefined
        const once: RunningWorker = { ...worker, stop: () => (stopped ??= worker.stop()) }
        workers.push(once)
        return once
      },
      stop,
    }
    return fixture
  } catch (error) {
    await stop()
    throw error
  }
}
