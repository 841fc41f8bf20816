import { randomUUID } from 'node:crypto'
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createClickHouse } from '../core/clickhouse/clickhouse.ts'
import { createEventCodec, createSchemaRegistry } from '../core/event/event-codec.ts'
import { createKafkaAdmin, topicMessageLimits } from '../core/kafka/kafka-admin.ts'
import { partitionOffsets, setCommittedOffsets } from '../core/kafka/kafka-offsets.ts'
import { prepareKafkaTopics } from '../core/kafka/prepare-topics.ts'
import { defaultBodyLimitBytes, topicMessageLimit, topics } from '../core/kafka/topics.ts'
import { createOtlpSpansCodec } from '../core/otlp/otlp-spans-codec.ts'
import { defaultBackoff } from '../core/runtime/backoff.ts'
import { createLogger } from '../core/runtime/logger.ts'
import { ingressNodeFlags } from '../services/ingress/main.ts'
import { workerEnvironment, workerNodeFlags } from '../services/worker/main.ts'
import { kafkaBrokers, schemaRegistryUrl } from '../test/stack/servers.ts'
import {
  machineLine,
  peakRssMb,
  type ServiceProcess,
  startScriptParts,
  startService,
  waitForHttp,
} from './bench-process.ts'
import { benchConnections, ingressEnv, withEnvChanges } from './ingress-load.ts'
import {
  type ConversationLoad,
  conversationLoads,
  conversationSizes,
  createPoster,
  otlpHeaders,
  sendAll,
  webhookHeaders,
  webhookPath,
} from './otlp-assembly-load.ts'
import { cpuSeconds } from './process-cpu.ts'
import { metricSum, metricsUrlOf, reportProblems, sumOf } from './worker-backlog.ts'

// `npm run bench:otlp-assembly`: OpenTelemetry traces to stored conversations on this machine,
// with the real Kafka and registry (the stack) and the pipeline's three processes started as
// their package.json scripts start them (node flags, allocator settings, shipped defaults):
// the ingress (POST /v1/traces and the webhook), the assembler, the worker (embedded ClickHouse).
// Generated LiveKit-shaped conversations (bench/otlp-assembly-load.ts) are posted as their
// BatchSpanProcessor requests (gzipped protobuf, as the Python exporter sends them).
//  1. Throughput: BENCH_CONVERSATIONS conversations by BENCH_CONNECTIONS (32) concurrent senders (each posts
//     one conversation's requests in order, the root's last, then takes the next), as fast as the
//     ingress answers: conversations/s and spans/s accepted, assembled (the assembler's emission
//     time: the stored `received_at`) and stored (ClickHouse's `inserted_at`), each counted from the
//     first request; CPU per conversation of each process; the assembler's peak RSS, spans and
//     traces held against its caps. Then the same conversations as webhooks through the same ingress
//     and worker: the webhook route's figures in the same run.
//  2. Freshness: BENCH_FRESHNESS_CONVERSATIONS conversations started at BENCH_FRESHNESS_RATE per
//     second, each posting its requests spread evenly over BENCH_FRESHNESS_SPREAD_SECONDS (the root's
//     last): from the 200 of the root's request to the conversation being queryable, p50/p95/p99/max.
//     Queryable = `inserted_at` of its conversations row (the engine's now64(3) as the row is written;
//     the worker writes that row after every other table of the conversation, as bench:worker
//     measures freshness): the embedded engine has one owner process, so it is read after the worker
//     stopped. Split at `received_at` (the assembler's emission) into the assembler's part (reading,
//     ASSEMBLER_ROOT_GRACE_MS, its tick) and Kafka + the worker's. BENCH_FRESHNESS_VARIANTS
//     (`;`-separated, e.g. `ASSEMBLER_ROOT_GRACE_MS=1000;WORKER_MAX_BATCH_AGE_MS=10`) adds a run per
//     variant with the assembler and the worker restarted with those settings.
//  3. Sizes of a conversation (BENCH_SIZE_SAMPLE of them) as OTLP JSON / protobuf / gzip, the largest
//     request and Kafka span message, against the body limit and the topics' max.message.bytes.
// The assembler and the worker join fresh consumer groups committed at their topics' ends (the
// topics are the stack's, which other runs fill); the assembler's start-up restore of earlier
// emissions is not measured here (ASSEMBLER_RESTORE_SECONDS=1 keeps earlier runs' traces out of
// its memory). Prints every figure beside its limit, appends to bench/results/otlp.md.
const settings = {
  conversations: Number(process.env.BENCH_CONVERSATIONS ?? 2000),
  historyItems: Number(process.env.BENCH_HISTORY_ITEMS ?? 80),
  senders: benchConnections,
  freshnessRate: Number(process.env.BENCH_FRESHNESS_RATE ?? 4),
  freshnessConversations: Number(process.env.BENCH_FRESHNESS_CONVERSATIONS ?? 240),
  freshnessSpreadSeconds: Number(process.env.BENCH_FRESHNESS_SPREAD_SECONDS ?? 30),
  freshnessVariants: (process.env.BENCH_FRESHNESS_VARIANTS ?? '').split(';').filter(Boolean),
  sizeSample: Number(process.env.BENCH_SIZE_SAMPLE ?? 200),
}
const limits = {
  freshnessP99Ms: 5000,
  /** The assembler's V8 old-space limit (start:assembler, compose). */
  assemblerHeapMb: Number(/--max-old-space-size=(\d+)/.exec(readStartScript('start:assembler'))?.[1] ?? NaN),
  assemblerMaxSpans: 500_000,
  assemblerMaxTraces: 20_000,
}
const ingressPort = 18_380
const kafka = { brokers: kafkaBrokers(), clientId: 'bench-otlp-assembly' }
const logger = createLogger('bench', 'warn')
const main = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const load1 = () => loadavg()[0]!.toFixed(2)

function readStartScript(name: string): string {
  return JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts[name]
}

/** A fresh consumer group that starts at the topic's end: nothing other runs left is read. */
async function groupAtEnd(groupId: string, topic: string): Promise<string> {
  const admin = createKafkaAdmin(kafka)
  try {
    const ends = await partitionOffsets(admin, topic)
    await setCommittedOffsets(admin, groupId, topic, new Map(ends.map((end) => [end.partition, end.high])))
  } finally {
    await admin.close()
  }
  return groupId
}

async function started(
  service: ServiceProcess,
  what: string,
): Promise<{ service: ServiceProcess; url: string }> {
  const url = await metricsUrlOf(service.output).catch((error) => {
    throw new Error(`${what}: ${(error as Error).message}`)
  })
  return { service, url }
}

async function startAssembler(changes = '') {
  const { environment, nodeFlags } = startScriptParts(readStartScript('start:assembler'))
  const env = withEnvChanges(
    {
      ...environment,
      KAFKA_BROKERS: kafka.brokers,
      SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
      ASSEMBLER_GROUP_ID: await groupAtEnd(`bench-assembler-${randomUUID()}`, topics.otlpSpans),
      ASSEMBLER_METRICS_PORT: '0',
      ASSEMBLER_RESTORE_SECONDS: '1',
      LOG_LEVEL: 'info',
    },
    changes,
  )
  return started(startService(main('../services/assembler/main.ts'), env, nodeFlags), 'assembler')
}

async function startWorker(dataDir: string, changes = '') {
  const env = withEnvChanges(
    {
      ...workerEnvironment,
      KAFKA_BROKERS: kafka.brokers,
      SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
      CLICKHOUSE_DATA_DIR: dataDir,
      WORKER_GROUP_ID: await groupAtEnd(`bench-worker-${randomUUID()}`, topics.conversationComplete),
      WORKER_METRICS_PORT: '0',
      LOG_LEVEL: 'info',
    },
    changes,
  )
  return started(startService(main('../services/worker/main.ts'), env, workerNodeFlags), 'worker')
}

const consumed = (workerUrl: string) => metricSum(workerUrl, 'worker_messages_consumed_total')

/** Waits until the worker consumed `target` messages in all; meanwhile samples the assembler's gauges. */
async function samplePeaks(assemblerUrl: string, peaks: Peaks): Promise<void> {
  peaks.spans = Math.max(peaks.spans, await metricSum(assemblerUrl, 'assembler_spans_held'))
  peaks.traces = Math.max(peaks.traces, await metricSum(assemblerUrl, 'assembler_traces_open'))
  peaks.heapBytes = Math.max(peaks.heapBytes, await metricSum(assemblerUrl, 'nodejs_heap_size_used_bytes'))
}

async function drained(workerUrl: string, assemblerUrl: string, target: number, peaks: Peaks) {
  const deadline = Date.now() + Number(process.env.BENCH_DRAIN_TIMEOUT_SECONDS ?? 300) * 1000
  let nextReport = Date.now() + 10_000
  for (;;) {
    for (const [name, running] of Object.entries(services))
      if (running.service.child.exitCode !== null || running.service.child.signalCode !== null)
        throw new Error(
          `the ${name} exited (${running.service.child.exitCode ?? running.service.child.signalCode}):\n${running.service.output.join('').slice(-3000)}`,
        )
    await samplePeaks(assemblerUrl, peaks)
    const done = await consumed(workerUrl)
    if (done >= target) return Date.now()
    if (Date.now() >= nextReport) {
      console.error(
        `  worker consumed ${done} of ${target}; assembler spans held ${await metricSum(assemblerUrl, 'assembler_spans_held')}`,
      )
      nextReport += 10_000
    }
    if (Date.now() > deadline)
      throw new Error(`the worker consumed ${await consumed(workerUrl)} of ${target}`)
    await sleep(250)
  }
}

interface Peaks {
  spans: number
  traces: number
  /** V8 heap used (the default metrics' nodejs_heap_size_used_bytes). */
  heapBytes: number
}
const noPeaks = (): Peaks => ({ spans: 0, traces: 0, heapBytes: 0 })

const percentile = (sorted: number[], q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!
const sortedNumbers = (values: number[]) => [...values].sort((a, b) => a - b)

/** Conversations started at `rate`/s, each posting its requests over `spreadSeconds`: the root's 200 per trace. */
async function sendSteadily(loads: ConversationLoad[], rate: number, spreadSeconds: number) {
  const poster = createPoster(ingressPort, 256)
  const acks = new Map<string, number>()
  let behindMs = 0
  const begin = performance.now() + 500
  await Promise.all(
    loads.map(async (load, index) => {
      const start = begin + (index / rate) * 1000
      const step = load.bodies.length > 1 ? (spreadSeconds * 1000) / (load.bodies.length - 1) : 0
      for (const [part, body] of load.bodies.entries()) {
        const wait = start + part * step - performance.now()
        if (wait > 0) await sleep(wait)
        else behindMs = Math.max(behindMs, -wait)
        await poster.post('/v1/traces', body, otlpHeaders)
      }
      acks.set(load.traceId, Date.now())
    }),
  )
  poster.close()
  return { acks, behindMs, non2xx: poster.non2xx, seconds: (performance.now() - begin) / 1000 }
}

const loadStart = load1()
console.error(`load average at start: ${loadStart}; preparing ${settings.conversations} conversations`)
const preparing = performance.now()
const throughputLoad = conversationLoads(settings.conversations, 341, settings.historyItems)
const freshnessRuns = ['', ...settings.freshnessVariants].map((changes, index) => ({
  changes,
  loads: conversationLoads(settings.freshnessConversations, 3400 + index, settings.historyItems),
}))
console.error(`prepared in ${((performance.now() - preparing) / 1000).toFixed(0)} s`)
const spansOf = (loads: ConversationLoad[]) => loads.reduce((sum, load) => sum + load.spans, 0)
const requestsOf = (loads: ConversationLoad[]) => loads.reduce((sum, load) => sum + load.bodies.length, 0)

const registry = createSchemaRegistry(schemaRegistryUrl())
const codecs = { spans: await createOtlpSpansCodec(registry), event: await createEventCodec(registry) }
const sizes = await conversationSizes(settings.sizeSample, 3411, settings.historyItems, codecs)

const dataDir = mkdtempSync(join(tmpdir(), 'va-bench-otlp-assembly-'))
const ingress = startService(main('../services/ingress/main.ts'), ingressEnv(ingressPort), ingressNodeFlags)
const services: {
  assembler?: Awaited<ReturnType<typeof startAssembler>>
  worker?: Awaited<ReturnType<typeof startWorker>>
} = {}
try {
  await waitForHttp(`http://127.0.0.1:${ingressPort}/readyz`)
  const spanTopics = [topics.otlpSpans, topics.conversationComplete, topics.otlpSpansDeadLetter]
  await prepareKafkaTopics(
    kafka,
    spanTopics,
    topicMessageLimit(defaultBodyLimitBytes),
    168,
    logger,
    new AbortController().signal,
    defaultBackoff,
  )
  const admin = createKafkaAdmin(kafka)
  const topicLimits = await topicMessageLimits(admin, spanTopics).finally(() => admin.close())
  services.assembler = await startAssembler()
  services.worker = await startWorker(dataDir)
  const pids = () => ({
    ingress: ingress.child.pid!,
    assembler: services.assembler!.service.child.pid!,
    worker: services.worker!.service.child.pid!,
  })
  const cpuNow = () =>
    Object.fromEntries(Object.entries(pids()).map(([name, pid]) => [name, cpuSeconds(pid)]))
  const cpuPerConversationMs = (before: Record<string, number>, count: number) => {
    const after = cpuNow()
    return Object.fromEntries(
      Object.keys(after).map((name) => [name, ((after[name]! - before[name]!) * 1000) / count]),
    ) as Record<'ingress' | 'assembler' | 'worker', number>
  }

  // 1. OTLP, as fast as the ingress answers.
  const peaks = noPeaks()
  const loadOtlp = load1()
  console.error(
    `OTLP: ${settings.conversations} conversations by ${settings.senders} senders (load ${loadOtlp})`,
  )
  const otlpPoster = createPoster(ingressPort, settings.senders)
  let consumedBase = await consumed(services.worker.url)
  let cpuBefore = cpuNow()
  const otlpStart = Date.now()
  let sentConversations = 0
  let ticks = 0
  const progress = setInterval(() => {
    void samplePeaks(services.assembler!.url, peaks).catch(() => {})
    if (++ticks % 40 === 0)
      console.error(`  ${sentConversations} conversations sent, non-2xx ${otlpPoster.non2xx}`)
  }, 250)
  await sendAll(throughputLoad, settings.senders, async (load) => {
    for (const body of load.bodies) await otlpPoster.post('/v1/traces', body, otlpHeaders)
    sentConversations++
  }).finally(() => clearInterval(progress))
  const otlpAccepted = Date.now()
  otlpPoster.close()
  await drained(services.worker.url, services.assembler.url, consumedBase + settings.conversations, peaks)
  const otlpCpu = cpuPerConversationMs(cpuBefore, settings.conversations)
  const assemblerRssMb = peakRssMb(pids().assembler)
  // Emissions by why: the root came (and its grace passed), a memory cap, the idle time.
  const emittedText = (await (await fetch(`${services.assembler.url}/metrics`)).text()).split('\n')
  const emittedBy = (reason: string) =>
    sumOf(
      emittedText.filter((line) => line.includes(`reason="${reason}"`)).join('\n'),
      'assembler_conversations_emitted_total',
    )
  const emitted = { root: emittedBy('root'), cap: emittedBy('cap'), idle: emittedBy('idle') }

  // The same conversations as webhooks, through the same ingress and worker.
  const loadWebhook = load1()
  console.error(`webhook: the same ${settings.conversations} conversations (load ${loadWebhook})`)
  const webhookPoster = createPoster(ingressPort, settings.senders)
  consumedBase = await consumed(services.worker.url)
  cpuBefore = cpuNow()
  const webhookStart = Date.now()
  await sendAll(throughputLoad, settings.senders, async (load) => {
    await webhookPoster.post(webhookPath, load.webhookBody, webhookHeaders)
  })
  const webhookAccepted = Date.now()
  webhookPoster.close()
  await drained(services.worker.url, services.assembler.url, consumedBase + settings.conversations, noPeaks())
  const webhookCpu = cpuPerConversationMs(cpuBefore, settings.conversations)

  // 2. Freshness at a steady rate, with the shipped defaults first.
  const freshness = []
  for (const run of freshnessRuns) {
    if (run.changes) {
      await services.assembler.service.stop()
      await services.worker.service.stop()
      services.assembler = await startAssembler(run.changes)
      services.worker = await startWorker(dataDir, run.changes)
    }
    const loadBefore = load1()
    console.error(
      `freshness ${run.changes || '(shipped defaults)'}: ${run.loads.length} conversations at ${settings.freshnessRate}/s (load ${loadBefore})`,
    )
    const base = await consumed(services.worker.url)
    const sent = await sendSteadily(run.loads, settings.freshnessRate, settings.freshnessSpreadSeconds)
    await drained(services.worker.url, services.assembler.url, base + run.loads.length, noPeaks())
    const insertSeconds = await metricSum(services.worker.url, 'worker_insert_duration_seconds_sum')
    const inserts = await metricSum(services.worker.url, 'worker_insert_duration_seconds_count')
    freshness.push({
      ...run,
      ...sent,
      loadBefore,
      loadAfter: load1(),
      meanInsertMs: (insertSeconds / inserts) * 1000,
    })
  }

  const ingressRssMb = peakRssMb(pids().ingress)
  const workerRssMb = peakRssMb(pids().worker)
  reportProblems('assembler', services.assembler.service.output)
  reportProblems('worker', services.worker.service.output)
  await services.assembler.service.stop()
  await services.worker.service.stop()
  await ingress.stop()

  // Read back what the worker stored.
  const clickhouse = createClickHouse({
    CLICKHOUSE_DATA_DIR: dataDir,
    CLICKHOUSE_USER: 'default',
    CLICKHOUSE_PASSWORD: '',
  })
  const rowsOf = async <T>(query: string, params: Record<string, unknown>) =>
    (
      await clickhouse.query({
        query,
        query_params: params,
        format: 'JSONEachRow',
        clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
      })
    ).json<T>()
  const storedOtlp = await rowsOf<{ trace: string; received: number; inserted: number }>(
    `SELECT origin_trace_id AS trace, toUnixTimestamp64Milli(min(received_at)) AS received,
       toUnixTimestamp64Milli(min(inserted_at)) AS inserted
     FROM voice_analytics.conversations WHERE origin_kind = 'otlp' GROUP BY origin_trace_id`,
    {},
  )
  const [webhookRows] = await rowsOf<{ n: number; last: number }>(
    `SELECT count() AS n, toUnixTimestamp64Milli(max(inserted_at)) AS last
     FROM voice_analytics.conversations FINAL WHERE origin_kind = 'webhook'`,
    {},
  )
  const [itemRows] = await rowsOf<{ otlp: number; webhook: number }>(
    `SELECT countIf(c.origin_kind = 'otlp') AS otlp, countIf(c.origin_kind = 'webhook') AS webhook
     FROM voice_analytics.conversation_items AS i FINAL
     INNER JOIN (SELECT session_id, origin_kind, origin_trace_id FROM voice_analytics.conversations FINAL) AS c USING session_id
     WHERE c.origin_kind = 'webhook' OR c.origin_trace_id IN {ids:Array(String)}`,
    { ids: throughputLoad.map((load) => load.traceId) },
  )
  await clickhouse.close()
  rmSync(dataDir, { recursive: true, force: true })

  const stored = new Map(storedOtlp.map((row) => [row.trace, row]))
  const throughputRows = throughputLoad.flatMap((load) => stored.get(load.traceId) ?? [])
  const lastAssembled = Math.max(...throughputRows.map((row) => row.received))
  const lastStored = Math.max(...throughputRows.map((row) => row.inserted))
  const per = (count: number, from: number, to: number) => count / ((to - from) / 1000)
  const otlp = {
    accepted: per(settings.conversations, otlpStart, otlpAccepted),
    assembled: per(throughputRows.length, otlpStart, lastAssembled),
    stored: per(throughputRows.length, otlpStart, lastStored),
    spans: per(spansOf(throughputLoad), otlpStart, otlpAccepted),
    requests: per(requestsOf(throughputLoad), otlpStart, otlpAccepted),
  }
  const webhook = {
    accepted: per(settings.conversations, webhookStart, webhookAccepted),
    stored: per(webhookRows!.n, webhookStart, webhookRows!.last),
  }
  const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES')
  const ms = (value: number) => `${value.toFixed(0)} ms`
  const kb = (value: number) => `${(value / 1024).toFixed(1)} KB`
  const mib = (value: number) => `${(value / 1024 / 1024).toFixed(0)} MiB`
  const freshnessLines = freshness.flatMap((run) => {
    const rows = run.loads.flatMap((load) => {
      const row = stored.get(load.traceId)
      const ack = run.acks.get(load.traceId)
      return row && ack !== undefined
        ? [{ total: row.inserted - ack, assembler: row.received - ack, worker: row.inserted - row.received }]
        : []
    })
    const total = sortedNumbers(rows.map((row) => row.total))
    const assembler = sortedNumbers(rows.map((row) => row.assembler))
    const worker = sortedNumbers(rows.map((row) => row.worker))
    const p99 = percentile(total, 0.99)
    const label = run.changes ? `with ${run.changes}` : 'shipped defaults'
    return [
      `| freshness, ${label}: root's 200 → queryable, p50 / p95 / p99 / max (${rows.length} of ${run.loads.length} conversations, load ${run.loadBefore} → ${run.loadAfter}) | ${ms(percentile(total, 0.5))} / ${ms(percentile(total, 0.95))} / **${ms(p99)}** / ${ms(total.at(-1)!)} | p99 ≤ ${limits.freshnessP99Ms} ms | ${verdict(p99 <= limits.freshnessP99Ms && rows.length === run.loads.length)} |`,
      `| … of which the assembler (root's 200 → emitted), p50 / p99 | ${ms(percentile(assembler, 0.5))} / ${ms(percentile(assembler, 0.99))} | ASSEMBLER_ROOT_GRACE_MS + tick | |`,
      `| … of which Kafka + the worker (emitted → row written), p50 / p99; mean insert ${run.meanInsertMs.toFixed(0)} ms | ${ms(percentile(worker, 0.5))} / ${ms(percentile(worker, 0.99))} | | |`,
      `| … offered: ${settings.freshnessRate} conversations/s, requests of each over ${settings.freshnessSpreadSeconds} s, ${(requestsOf(run.loads) / run.seconds).toFixed(0)} requests/s, ${(spansOf(run.loads) / run.seconds).toFixed(0)} spans/s; sender behind schedule at most ${ms(run.behindMs)}; non-2xx ${run.non2xx} | | | |`,
    ]
  })
  const lines = [
    `## \`bench:otlp-assembly\` ${new Date().toISOString()} — ${machineLine()}`,
    `load average (1 min) at start / OTLP load / webhook load / end: ${loadStart} / ${loadOtlp} / ${loadWebhook} / ${load1()} (compare figures within one run)`,
    `conversations: the generator's default mix at ${settings.historyItems} history items (${(sizes.average('spans')).toFixed(0)} spans and ${sizes.average('requests').toFixed(0)} BatchSpanProcessor requests on average), gzipped protobuf; throughput: ${settings.conversations} conversations by ${settings.senders} senders; ingress, assembler and worker as their start scripts run them, shipped defaults`,
    '',
    '| figure | measured | limit / target | |',
    '|---|---|---|---|',
    `| OTLP: conversations/s accepted by the ingress (all their requests answered 200) | ${otlp.accepted.toFixed(1)} (${otlp.requests.toFixed(0)} requests/s, **${otlp.spans.toFixed(0)} spans/s**), non-2xx ${otlpPoster.non2xx} | | |`,
    `| OTLP: conversations/s assembled (emitted by the assembler, from the first request) | **${otlp.assembled.toFixed(1)}** (${throughputRows.length} of ${settings.conversations}; emitted: root ${emitted.root}, cap ${emitted.cap}, idle ${emitted.idle}) | | |`,
    `| OTLP: conversations/s stored (rows in ClickHouse, from the first request) | **${otlp.stored.toFixed(1)}** (${itemRows!.otlp} item rows) | | |`,
    `| OTLP: CPU per conversation, ingress / assembler / worker | ${otlpCpu.ingress.toFixed(1)} / ${otlpCpu.assembler.toFixed(1)} / ${otlpCpu.worker.toFixed(1)} ms | | |`,
    `| webhook, same run, same conversations: events/s accepted / stored | ${webhook.accepted.toFixed(1)} / ${webhook.stored.toFixed(1)} (${webhookRows!.n} rows, ${itemRows!.webhook} item rows), non-2xx ${webhookPoster.non2xx} | | |`,
    `| webhook: CPU per conversation, ingress / worker | ${webhookCpu.ingress.toFixed(1)} / ${webhookCpu.worker.toFixed(1)} ms | | |`,
    `| assembler peak V8 heap used (sampled 4×/s) / peak RSS, after the throughput load | ${(peaks.heapBytes / 1024 / 1024).toFixed(0)} / ${assemblerRssMb.toFixed(0)} MB (heap ${(peaks.heapBytes / Math.max(peaks.spans, 1)).toFixed(0)} B per span held) | V8 old space ${limits.assemblerHeapMb} MB (start:assembler) | ${verdict(peaks.heapBytes / 1024 / 1024 < limits.assemblerHeapMb)} |`,
    `| assembler peak spans held / open traces (gauges, sampled 4×/s from the first request) | ${peaks.spans} / ${peaks.traces} | ASSEMBLER_MAX_SPANS ${limits.assemblerMaxSpans} / ASSEMBLER_MAX_TRACES ${limits.assemblerMaxTraces} | ${verdict(peaks.spans <= limits.assemblerMaxSpans && peaks.traces <= limits.assemblerMaxTraces)} |`,
    `| ingress / worker peak RSS (whole run) | ${ingressRssMb.toFixed(0)} / ${workerRssMb.toFixed(0)} MB | | |`,
    ...freshnessLines,
    `| conversation as OTLP JSON / protobuf / gzipped protobuf (its requests summed; average of ${sizes.count}, largest) | ${kb(sizes.average('json'))} / ${kb(sizes.average('protobuf'))} / ${kb(sizes.average('gzip'))} (largest ${kb(sizes.largest('json'))} / ${kb(sizes.largest('protobuf'))} / ${kb(sizes.largest('gzip'))}); gzipped JSON ${kb(sizes.average('gzipJson'))}; its webhook JSON ${kb(sizes.average('webhookJson'))} | | |`,
    `| conversation's Kafka span messages (Avro, summed) | ${kb(sizes.average('avro'))} (largest ${kb(sizes.largest('avro'))}) | | |`,
    `| largest request, JSON / protobuf | ${kb(sizes.largest('largestRequestJson'))} / ${kb(sizes.largest('largestRequestProtobuf'))} | body limit ${mib(defaultBodyLimitBytes)} | ${verdict(sizes.largest('largestRequestJson') <= defaultBodyLimitBytes)} |`,
    `| largest Kafka span message | ${kb(sizes.largest('largestMessage'))} | ${topics.otlpSpans} max.message.bytes ${topicLimits.get(topics.otlpSpans)} | ${verdict(sizes.largest('largestMessage') <= topicLimits.get(topics.otlpSpans)!)} |`,
    `| whole trace in one request (an exporter sending it at once), JSON / protobuf / gzip; its span message | ${kb(sizes.largest('wholeJson'))} / ${kb(sizes.largest('wholeProtobuf'))} / ${kb(sizes.largest('wholeGzip'))}; ${kb(sizes.largest('wholeMessage'))} | body limit ${mib(defaultBodyLimitBytes)}; max.message.bytes ${topicLimits.get(topics.otlpSpans)} | ${verdict(sizes.largest('wholeJson') <= defaultBodyLimitBytes && sizes.largest('wholeMessage') <= topicLimits.get(topics.otlpSpans)!)} |`,
    `| assembled ConversationComplete message (largest) | ${kb(sizes.largest('assembledRecord'))} | ${topics.conversationComplete} max.message.bytes ${topicLimits.get(topics.conversationComplete)} | ${verdict(sizes.largest('assembledRecord') <= topicLimits.get(topics.conversationComplete)!)} |`,
    '',
  ]
  console.log(lines.join('\n'))
  appendFileSync(new URL('./results/otlp.md', import.meta.url), `${lines.join('\n')}\n`)
} catch (error) {
  if (services.assembler) reportProblems('assembler', services.assembler.service.output)
  if (services.worker) reportProblems('worker', services.worker.service.output)
  throw error
} finally {
  await services.assembler?.service.stop()
  await services.worker?.service.stop()
  await ingress.stop()
}
