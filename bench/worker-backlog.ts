import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { createClickHouse } from '../core/clickhouse/clickhouse.ts'
import type { ConversationCompleteEvent } from '../core/event/conversation-complete.types.ts'
import { createEventCodec, createSchemaRegistry, type EventCodec } from '../core/event/event-codec.ts'
import { ensureTopics, withKafkaAdmin } from '../core/kafka/kafka-admin.ts'
import { createBatchProducer } from '../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../core/kafka/kafka-settings.ts'
import { kafkaBrokers, schemaRegistryUrl } from '../test/stack/servers.ts'
import { workerEnv } from '../test/support/worker-settings.ts'
import { messageBytes } from './bench-conversations.ts'
import { peakRssMb, type ServiceProcess, startScriptParts, startService } from './bench-process.ts'
import { cpuSeconds, mainThreadCpuSeconds } from './process-cpu.ts'

// A backlog of generated conversations in a throwaway topic, and one worker process draining it
// while the bench scrapes its metrics: shared by `npm run bench:worker` and the A/B drain of two
// checkouts (bench/ab/worker-drain-ab.ts).
/** The stack's Kafka (as `clientId`) and the registry's codec, as the worker benchmarks publish with. */
export async function benchKafkaAndCodec(
  clientId: string,
): Promise<{ kafka: KafkaSettings; codec: EventCodec }> {
  const kafka = { brokers: kafkaBrokers(), clientId }
  return { kafka, codec: await createEventCodec(createSchemaRegistry(schemaRegistryUrl())) }
}

export async function createBacklogTopic(kafka: KafkaSettings, name: string): Promise<void> {
  await withKafkaAdmin(kafka, (admin) => ensureTopics(admin, [{ topic: name, numPartitions: 6 }]))
}

export async function deleteBacklogTopic(kafka: KafkaSettings, name: string): Promise<void> {
  await withKafkaAdmin(kafka, (admin) => admin.deleteTopics({ topics: [name] }).catch(() => {}))
}

export async function fillBacklog(options: {
  kafka: KafkaSettings
  codec: EventCodec
  /** The index-th conversation of the backlog. */
  conversation: (index: number) => ConversationCompleteEvent
  topic: string
  count: number
}): Promise<{ seconds: number; avroKb: number }> {
  const { kafka, codec, conversation, topic, count } = options
  const producer = createBatchProducer(kafka)
  await producer.connect([topic])
  const started = performance.now()
  let bytes = 0
  const inFlight: Promise<unknown>[] = []
  for (let start = 0; start < count; start += 250) {
    const events = Array.from({ length: Math.min(250, count - start) }, (_, index) =>
      conversation(start + index),
    )
    const values = await Promise.all(events.map((event) => messageBytes(codec, event)))
    for (const value of values) bytes += value.length
    inFlight.push(
      producer.sendBatch([
        {
          topic,
          messages: events.map((event, index) => ({ key: event.data.session_id, value: values[index]! })),
        },
      ]),
    )
    if (inFlight.length >= 4) await inFlight.shift()
  }
  await Promise.all(inFlight)
  await producer.disconnect()
  return { seconds: (performance.now() - started) / 1000, avroKb: bytes / count / 1024 }
}

/**
 * Publishes `count` events to `topic` at `rate` events/s (each 100 ms tick sends what the rate has made
 * due by its end, whole events, also at 50/s); returns the rate reached.
 */
export async function publishAtRate(options: {
  kafka: KafkaSettings
  codec: EventCodec
  conversation: (index: number) => ConversationCompleteEvent
  topic: string
  rate: number
  count: number
}): Promise<number> {
  const { kafka, codec, conversation, topic, rate, count } = options
  const producer = createBatchProducer(kafka)
  await producer.connect([topic])
  const tick = 100
  const started = performance.now()
  let sent = 0
  const sends: Promise<unknown>[] = []
  for (let step = 0; sent < count; step++) {
    const due = Math.min(count, Math.round((rate * (step + 1) * tick) / 1000))
    const events = Array.from({ length: due - sent }, (_, index) => conversation(sent + index))
    const values = await Promise.all(events.map((event) => messageBytes(codec, event)))
    if (events.length > 0)
      sends.push(
        producer.sendBatch([
          {
            topic,
            messages: events.map((event, index) => ({ key: event.data.session_id, value: values[index]! })),
          },
        ]),
      )
    sent += events.length
    const wait = started + (step + 1) * tick - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
  }
  await Promise.all(sends)
  await producer.disconnect()
  return count / ((performance.now() - started) / 1000)
}

/**
 * Freshness publish → queryable of what a worker stored in `dataDir` (after it stopped): ClickHouse's
 * `inserted_at` of each conversation row minus the event's `received_at`, p50 and p99 in ms.
 */
export async function storedFreshness(dataDir: string): Promise<{ p50: number; p99: number; n: number }> {
  const clickhouse = createClickHouse({
    CLICKHOUSE_DATA_DIR: dataDir,
    CLICKHOUSE_USER: 'default',
    CLICKHOUSE_PASSWORD: '',
  })
  try {
    const result = await clickhouse.query({
      query: `SELECT quantilesExact(0.5, 0.99)(toUnixTimestamp64Milli(inserted_at) - toUnixTimestamp64Milli(received_at)) AS q,
        count() AS n FROM voice_analytics.conversations`,
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    })
    const [row] = await result.json<{ q: number[]; n: number }>()
    return { p50: row!.q[0]!, p99: row!.q[1]!, n: row!.n }
  } finally {
    await clickhouse.close()
  }
}

// The tests' worker settings, with the bench's own group name and info-level logs (the bench
// reads the metrics URL from the log).
/**
 * The hour-rollup keeper every second, as the Kafka-engine peer's refreshable view (views.sql): the
 * same work at the same pace (the worker's default is every 10 s).
 */
export const benchHourRollupIntervalMs = 1000

export const benchWorkerEnv = (topic: string, dataDir: string) =>
  workerEnv(topic, dataDir, {
    WORKER_GROUP_ID: `bench-worker-${randomUUID()}`,
    LOG_LEVEL: 'info',
    WORKER_HOUR_ROLLUP_INTERVAL_MS: String(benchHourRollupIntervalMs),
  })

const hourRollupPasses = 'worker_hour_rollup_passes_total'

/**
 * The drain ends once the hour rollup took in its last write, as the peer's clock waits for its own
 * (hour-rollup-caught-up.ts): two more passes of the keeper, the second begun after the last write.
 * A worker without the keeper (an older checkout in an A/B) recomputed within its writes.
 */
async function awaitHourRollupPasses(url: string, text: string): Promise<void> {
  if (!text.includes(hourRollupPasses)) return
  const target = sumOf(text, hourRollupPasses) + 2
  while (sumOf(await metricsText(url), hourRollupPasses) < target)
    await new Promise((resolve) => setTimeout(resolve, 100))
}

export async function metricsUrlOf(output: string[]): Promise<string> {
  for (let waited = 0; waited < 120_000; waited += 100) {
    const match = /"metrics":"(http:[^"]+)"/.exec(output.join(''))
    if (match) return match[1]!
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`the worker did not start:\n${output.join('').slice(-2000)}`)
}

async function metricsText(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text()
}

/** The sum of every series of a metric (name prefix) in Prometheus text. */
export function sumOf(text: string, prefix: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0)
}

export async function metricSum(url: string, prefix: string): Promise<number> {
  return sumOf(await metricsText(url), prefix)
}

/** Warnings and errors of a worker run (retries would distort the figures): shown, not hidden. */
export function reportProblems(what: string, output: string[]): void {
  const problems = output
    .join('')
    .split('\n')
    .filter((line) => /"level":(40|50|60)/.test(line))
  if (problems.length > 0)
    console.error(`${what}: ${problems.length} warnings/errors, first:\n${problems.slice(0, 3).join('\n')}`)
}

/**
 * The environment and node flags a checkout starts its worker with (its package.json's start:worker),
 * so that a bench runs each checkout's worker as `npm run start:worker` would.
 */
export function startWorkerCommand(workerMain: string): ReturnType<typeof startScriptParts> {
  const packageJson = resolve(dirname(workerMain), '../../package.json')
  return startScriptParts(JSON.parse(readFileSync(packageJson, 'utf8')).scripts?.['start:worker'] ?? '')
}

/**
 * A worker process of `workerMain`'s checkout, started as its start:worker starts it (environment
 * and node flags), with the bench's settings; `extra` adds flags and environment (A/B variants).
 */
export function startBenchWorker(
  workerMain: string,
  topic: string,
  dataDir: string,
  extra: { nodeFlags?: string[]; env?: Record<string, string> } = {},
): ServiceProcess {
  const { environment, nodeFlags } = startWorkerCommand(workerMain)
  return startService(workerMain, { ...environment, ...benchWorkerEnv(topic, dataDir), ...extra.env }, [
    ...nodeFlags,
    ...(extra.nodeFlags ?? []),
  ])
}

/** A fresh worker (`workerMain`, a temp data directory, a fresh group) drains `total` messages of `topic`. */
export async function measureBacklogDrain(options: {
  topic: string
  total: number
  workerMain: string
  /** Node/V8 flags added to those its checkout starts the worker with (e.g. --trace-gc). */
  nodeFlags?: string[]
  /** Where to write the worker's output (e.g. --trace-gc lines), if anywhere. */
  outputFile?: string
  /** Environment added to the worker's (e.g. MALLOC_ARENA_MAX for an A/B). */
  env?: Record<string, string>
}) {
  const { topic, total, workerMain } = options
  const dataDir = mkdtempSync(join(tmpdir(), 'va-bench-worker-'))
  const service = startBenchWorker(workerMain, topic, dataDir, options)
  try {
    const url = await metricsUrlOf(service.output)
    let firstAt = 0
    let cpuAtFirst = 0
    let mainCpuAtFirst = 0
    let consumed = 0
    let text = ''
    while (consumed < total) {
      // One scrape per tick, every 100 ms: polling costs the worker CPU the figures would include.
      await new Promise((resolve) => setTimeout(resolve, 100))
      text = await metricsText(url)
      const inFlight = sumOf(text, 'worker_batches_in_flight')
      consumed = sumOf(text, 'worker_messages_consumed_total')
      const dead = sumOf(text, 'worker_messages_consumed_total{outcome="dead_lettered"')
      if (dead > 0) throw new Error(`${dead} messages went to the DLQ (did the registry restart?)`)
      if (firstAt === 0 && (inFlight > 0 || consumed > 0)) {
        firstAt = performance.now()
        cpuAtFirst = cpuSeconds(service.child.pid!)
        mainCpuAtFirst = mainThreadCpuSeconds(service.child.pid!)
      }
    }
    const consumedSeconds = (performance.now() - firstAt) / 1000
    await awaitHourRollupPasses(url, text)
    const seconds = (performance.now() - firstAt) / 1000
    const rows = await metricSum(url, 'worker_rows_inserted_total{table="conversation_items"')
    const rssMb = peakRssMb(service.child.pid!)
    const cpu = cpuSeconds(service.child.pid!)
    const mainCpu = mainThreadCpuSeconds(service.child.pid!)
    reportProblems('worker', service.output)
    return {
      conversationsPerSecond: total / seconds,
      rowsPerSecond: rows / seconds,
      rows,
      seconds,
      /** Until the last message was consumed, before the keeper's last passes. */
      consumedSeconds,
      rssMb,
      // CPU of the whole worker process, start-up (migrations) included; and of the drain alone.
      cpuMsPerConversation: (cpu * 1000) / total,
      drainCpuMsPerConversation: ((cpu - cpuAtFirst) * 1000) / total,
      /** The drain's main (JS) thread alone. */
      drainMainThreadCpuMsPerConversation: ((mainCpu - mainCpuAtFirst) * 1000) / total,
      /** The worker's metrics once it drained (Prometheus text). */
      metrics: await metricsText(url),
    }
  } finally {
    await service.stop()
    if (options.outputFile) writeFileSync(options.outputFile, service.output.join(''))
    rmSync(dataDir, { recursive: true, force: true })
  }
}
