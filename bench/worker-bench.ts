import { randomUUID } from 'node:crypto'
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { kafkaBrokers, schemaRegistryUrl } from '../test/stack/servers.ts'
import { conversationPool, historyDates } from './bench-conversations.ts'
import { machineLine, peakRssMb, startService } from './bench-process.ts'
import {
  benchKafkaAndCodec,
  createBacklogTopic,
  deleteBacklogTopic,
  fillBacklog,
  measureBacklogDrain,
  metricSum,
  metricsUrlOf,
  publishAtRate,
  startBenchWorker,
  storedFreshness,
} from './worker-backlog.ts'

// `npm run bench:worker`: fills a topic with generated conversations (~40 items each) through
// real Kafka and the real registry, then measures, each in a process of its own:
//  1. consume + decode alone (the limit): the worker's consumer settings and registry decoding;
//  2. the worker (`node services/worker/main.ts`) into embedded ClickHouse: conversations/s,
//     item rows/s, peak RSS;
//  3. the peer a user would pick instead: ClickHouse's own Kafka engine in chDB
//     (bench/clickhouse-side/kafka-engine-peer.ts: ENGINE = Kafka, kafka_format = 'AvroConfluent',
//     the views of bench/clickhouse-side/views.sql into a fresh database migrated with the
//     project's migrations, kafka_max_block_size = 1000, kafka_flush_interval_ms = 500, the best
//     settings measured in issue #12) on the same backlog: conversations/s from its first message
//     read (as the worker's from its first batch) until its conversations table holds the backlog (and its items table every item: the views of one
//     block run one after another; and its hour rollup, a refreshable view, counts what its minute
//     rollup counts: the tables and rollups the worker fills, bench/results/worker.md "The peer"),
//     CPU per conversation, peak RSS;
//  3b. the worker on a history: the same number of conversations spread over ten years of months
//     (bench-conversations.ts historyDates), as a user importing old calls sends them; its rate
//     against the live backlog's (the conversations above happen now);
//  4. freshness at 50 and at 500 events/s (BENCH_FRESHNESS_RATES), each with a fresh worker and
//     topic: publish -> queryable, p50/p99, and the worker's peak RSS under that load. `received_at`
//     is stamped when the bench encodes the event (where the ingress would accept it); `inserted_at`
//     is ClickHouse's DEFAULT now64(3) on the conversation row, which the worker writes last, once
//     every other table of the conversation is stored: the moment the conversation is queryable.
// Prints the figures beside the design's targets and appends them to bench/results/worker.md.
// BENCH_FRESHNESS_ONLY=1 measures freshness alone (no backlog: minutes instead of a quarter hour).
const targets = {
  conversationsPerSecond: 2000,
  rowsPerSecond: 78_000,
  ratio: 0.5,
  /** 1.5 × ClickHouse's own Kafka engine filling the same tables and rollups (#30), at no more CPU nor memory. */
  kafkaEngineRatio: 1.5,
  /** A history drains at no less than half the rate of live conversations (#30). */
  historyRatio: 0.5,
  /** Freshness p99 at a rate: ≤ 1 s at 50 events/s, ≤ 2 s at 500 (issue #12). */
  freshnessP99Ms: (rate: number) => (rate <= 50 ? 1000 : 2000),
  rssMb: 600,
}
const total = Number(process.env.BENCH_CONVERSATIONS ?? 20_000)
const freshnessRates = (process.env.BENCH_FRESHNESS_RATES ?? '50,500').split(',').map(Number)
const freshnessOnly = process.env.BENCH_FRESHNESS_ONLY === '1'
const maxBatchAgeMs = process.env.WORKER_MAX_BATCH_AGE_MS ?? '50 (default)'
const freshnessSeconds = Number(process.env.BENCH_FRESHNESS_SECONDS ?? 30)
const { kafka, codec } = await benchKafkaAndCodec('bench-worker')
const workerMain = fileURLToPath(new URL('../services/worker/main.ts', import.meta.url))
const decodeOnly = fileURLToPath(new URL('./consume-decode-only.ts', import.meta.url))
const kafkaEnginePeer = fileURLToPath(new URL('./clickhouse-side/kafka-engine-peer.ts', import.meta.url))

// A pool of distinct generated conversations, reused with fresh session ids.
const pool = conversationPool()
const itemsPerConversation = pool.itemsPerConversation
/** History items of the backlog's conversations: the peer is done when it stored them all. */
const backlogItems = Array.from({ length: total }, (_, index) => pool.items(index)).reduce(
  (sum, items) => sum + items,
  0,
)
const copy = pool.event
const historyPool = conversationPool(4000, 2024, historyDates)

const createTopic = (name: string) => createBacklogTopic(kafka, name)
const deleteTopic = (name: string) => deleteBacklogTopic(kafka, name)
const fill = (topic: string, count: number, conversation = copy) =>
  fillBacklog({ kafka, codec, conversation, topic, count })

async function measureDecodeOnly(topic: string): Promise<number> {
  const service = startService(decodeOnly, {
    TOPIC: topic,
    TOTAL: String(total),
    KAFKA_BROKERS: kafkaBrokers(),
    SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
  })
  await new Promise((resolve) => service.child.once('exit', resolve))
  const line = service.output
    .join('')
    .split('\n')
    .find((candidate) => candidate.startsWith('{"decoded"'))
  if (!line) throw new Error(`consume-decode-only failed:\n${service.output.join('').slice(-2000)}`)
  return (JSON.parse(line) as { perSecond: number }).perSecond
}

/** The Kafka-engine peer on the same backlog, in a process of its own (see the header). */
async function measureKafkaEngine(topic: string) {
  const service = startService(kafkaEnginePeer, {
    TOPIC: topic,
    TOTAL: String(total),
    TOTAL_ITEMS: String(backlogItems),
    KAFKA_BROKERS: kafkaBrokers(),
    SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
  })
  try {
    let line: string | undefined
    while (!line) {
      if (service.child.exitCode !== null)
        throw new Error(`the Kafka engine peer failed:\n${service.output.join('').slice(-2000)}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
      line = service.output
        .join('')
        .split('\n')
        .find((candidate) => candidate.startsWith('{"conversations"'))
    }
    const rssMb = peakRssMb(service.child.pid!)
    const result = JSON.parse(line) as {
      perSecond: number
      itemsPerSecond: number
      items: number
      seconds: number
      cpuMsPerConversation: number
      joinSeconds: number
    }
    return { ...result, rssMb }
  } finally {
    await service.stop()
  }
}

const measureWorker = (topic: string) => measureBacklogDrain({ topic, total, workerMain })

async function measureFreshness(topic: string, rate: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'va-bench-fresh-'))
  const service = startBenchWorker(workerMain, topic, dataDir)
  const count = Math.round(rate * freshnessSeconds)
  try {
    const url = await metricsUrlOf(service.output)
    const achievedRate = await publishAtRate({ kafka, codec, conversation: copy, topic, rate, count })
    while ((await metricSum(url, 'worker_messages_consumed_total')) < count)
      await new Promise((resolve) => setTimeout(resolve, 100))
    const rssMb = peakRssMb(service.child.pid!)
    await service.stop()
    return { ...(await storedFreshness(dataDir)), rssMb, achievedRate }
  } finally {
    await service.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const loadBefore = loadavg()[0]!
const backlogTopic = `bench.worker.${randomUUID()}`
const historyTopic = `bench.worker.history.${randomUUID()}`
const freshTopics = freshnessRates.map((rate) => `bench.worker.fresh${rate}.${randomUUID()}`)
if (!freshnessOnly) {
  await createTopic(backlogTopic)
  await createTopic(historyTopic)
}
for (const topic of freshTopics) await createTopic(topic)
try {
  const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES')
  const backlogLines: string[] = []
  let backlogRssMb = 0
  if (!freshnessOnly) {
    const filled = await fill(backlogTopic, total)
    console.error(`filled ${total} conversations in ${filled.seconds.toFixed(0)} s`)
    const decodePerSecond = await measureDecodeOnly(backlogTopic)
    console.error(`consume + decode alone: ${decodePerSecond.toFixed(0)}/s`)
    const worker = await measureWorker(backlogTopic)
    console.error(`worker: ${worker.conversationsPerSecond.toFixed(0)} conversations/s`)
    const engine = await measureKafkaEngine(backlogTopic)
    console.error(`Kafka engine: ${engine.perSecond.toFixed(0)} conversations/s`)
    await fill(historyTopic, total, historyPool.event)
    const history = await measureWorker(historyTopic)
    console.error(`worker on a history: ${history.conversationsPerSecond.toFixed(0)} conversations/s`)
    const historyRatio = history.conversationsPerSecond / worker.conversationsPerSecond
    const ratio = worker.conversationsPerSecond / decodePerSecond
    const engineRatio = worker.conversationsPerSecond / engine.perSecond
    backlogRssMb = worker.rssMb
    backlogLines.push(
      `| worker conversations/s | ${worker.conversationsPerSecond.toFixed(0)} | ≥ ${targets.conversationsPerSecond} | ${verdict(worker.conversationsPerSecond >= targets.conversationsPerSecond)} |`,
      `| worker item rows/s | ${worker.rowsPerSecond.toFixed(0)} | ≥ ${targets.rowsPerSecond} | ${verdict(worker.rowsPerSecond >= targets.rowsPerSecond)} |`,
      `| worker CPU per conversation (whole process) | ${worker.cpuMsPerConversation.toFixed(2)} ms | — | |`,
      `| consume + decode alone, messages/s (the limit) | ${decodePerSecond.toFixed(0)} | — | |`,
      `| worker / consume+decode ratio | ${ratio.toFixed(2)} | ≥ ${targets.ratio} | ${verdict(ratio >= targets.ratio)} |`,
      `| Kafka engine (peer) conversations/s / item rows/s | ${engine.perSecond.toFixed(0)} / ${engine.itemsPerSecond.toFixed(0)} | — | |`,
      `| Kafka engine CPU per conversation / peak RSS | ${engine.cpuMsPerConversation.toFixed(2)} ms / ${engine.rssMb.toFixed(0)} MB | — | |`,
      `| worker / Kafka engine ratio | ${engineRatio.toFixed(2)} | ≥ ${targets.kafkaEngineRatio.toFixed(1)} | ${verdict(engineRatio >= targets.kafkaEngineRatio)} |`,
      `| worker / Kafka engine CPU per conversation | ${worker.cpuMsPerConversation.toFixed(2)} / ${engine.cpuMsPerConversation.toFixed(2)} ms | ≤ the engine's | ${verdict(worker.cpuMsPerConversation <= engine.cpuMsPerConversation)} |`,
      `| worker / Kafka engine peak RSS | ${worker.rssMb.toFixed(0)} / ${engine.rssMb.toFixed(0)} MB | ≤ the engine's | ${verdict(worker.rssMb <= engine.rssMb)} |`,
      `| worker on a history (${total} conversations over 120 months) conversations/s, / live | ${history.conversationsPerSecond.toFixed(0)}, ${historyRatio.toFixed(2)} | ≥ ${targets.historyRatio} | ${verdict(historyRatio >= targets.historyRatio)} |`,
      `| rows checked | ${worker.rows} item rows in ${worker.seconds.toFixed(1)} s (${filled.avroKb.toFixed(1)} KB Avro average); Kafka engine: ${engine.items} in ${engine.seconds.toFixed(1)} s from its first message read (group join before it: ${engine.joinSeconds.toFixed(1)} s) | | |`,
    )
  }
  const freshnessLines: string[] = []
  for (const [index, rate] of freshnessRates.entries()) {
    const freshness = await measureFreshness(freshTopics[index]!, rate)
    const target = targets.freshnessP99Ms(rate)
    console.error(`freshness at ${rate}/s: p50 ${freshness.p50} ms, p99 ${freshness.p99} ms`)
    freshnessLines.push(
      `| freshness publish → queryable p50 / p99 at ${freshness.achievedRate.toFixed(0)} events/s (${freshness.n} conversations) | ${freshness.p50} / ${freshness.p99} ms | p99 ≤ ${target} ms | ${verdict(freshness.p99 <= target)} |`,
      `| worker peak RSS at ${rate} events/s | ${freshness.rssMb.toFixed(0)} MB | ≤ ${targets.rssMb} MB | ${verdict(freshness.rssMb <= targets.rssMb)} |`,
    )
  }

  const lines = [
    `## ${new Date().toISOString()} — ${machineLine()}`,
    `load average (1 min) at start / end: ${loadBefore.toFixed(2)} / ${loadavg()[0]!.toFixed(2)} (other engineers' runs share the machine)`,
    freshnessOnly
      ? `freshness only (BENCH_FRESHNESS_ONLY=1): ${freshnessSeconds} s per rate`
      : `backlog: ${total} conversations, ${itemsPerConversation.toFixed(1)} history items average, 6 partitions; embedded ClickHouse (chDB)`,
    `WORKER_MAX_BATCH_AGE_MS: ${maxBatchAgeMs}`,
    '',
    '| figure | measured | target | |',
    '|---|---|---|---|',
    ...backlogLines,
    ...(freshnessOnly
      ? []
      : [
          `| worker peak RSS (backlog) | ${backlogRssMb.toFixed(0)} MB | ≤ ${targets.rssMb} MB | ${verdict(backlogRssMb <= targets.rssMb)} |`,
        ]),
    ...freshnessLines,
    '',
  ]
  console.log(lines.join('\n'))
  appendFileSync(new URL('./results/worker.md', import.meta.url), `${lines.join('\n')}\n`)
} finally {
  if (!freshnessOnly) {
    await deleteTopic(backlogTopic)
    await deleteTopic(historyTopic)
  }
  for (const topic of freshTopics) await deleteTopic(topic)
}
