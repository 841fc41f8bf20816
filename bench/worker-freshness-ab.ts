import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClickHouse } from '../services/core/clickhouse.ts'
import { createEventCodec, createSchemaRegistry } from '../services/core/event-codec.ts'
import { createKafka } from '../services/core/kafka.ts'
import { createLogger } from '../services/core/logger.ts'
import { kafkaBrokers, schemaRegistryUrl } from '../test/stack/servers.ts'
import { conversationPool, messageBytes } from './bench-conversations.ts'
import { abCheckouts, peakRssMb, startService } from './bench-process.ts'
import { cpuSeconds } from './process-cpu.ts'
import {
  benchWorkerEnv,
  createBacklogTopic,
  deleteBacklogTopic,
  metricSum,
  metricsUrlOf,
  startWorkerNodeFlags,
} from './worker-backlog.ts'

// `node bench/worker-freshness-ab.ts`: freshness (publish → queryable) of the workers of two
// checkouts (A: BENCH_A_DIR, default /work/main; B: BENCH_B_DIR, default this one) at the same
// time, on the same events: one topic (6 partitions) fed at BENCH_RATE events/s (250) for
// BENCH_SECONDS (30), each worker in a consumer group and a data directory of its own. On a shared
// machine the load changes from one run to the next by more than the difference looked for; run side
// by side, both workers see the same load (and each other's: together they ask for twice the CPU of
// one at BENCH_RATE, so a rate of half the one of interest asks for what that rate would of one).
// Prints p50/p99 as `npm run bench:worker` measures them (ClickHouse's `inserted_at` of the
// conversation row minus the event's `received_at`), each worker's CPU per conversation and peak RSS.
const rate = Number(process.env.BENCH_RATE ?? 250)
const seconds = Number(process.env.BENCH_SECONDS ?? 30)
const dirs = abCheckouts()
type Code = keyof typeof dirs
const logger = createLogger('bench', 'warn')
const kafka = createKafka({ brokers: kafkaBrokers(), clientId: 'bench-freshness-ab' }, logger)
const codec = await createEventCodec(createSchemaRegistry(schemaRegistryUrl()))
const pool = conversationPool()
const topic = `bench.freshness-ab.${randomUUID()}`
const count = Math.round(rate * seconds)

async function freshness(dataDir: string) {
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

await createBacklogTopic(kafka, topic)
const workers = (['A', 'B'] as Code[]).map((code) => {
  const dataDir = mkdtempSync(join(tmpdir(), `va-bench-fresh-ab-${code}-`))
  const workerMain = `${dirs[code]}/services/worker/main.ts`
  const service = startService(workerMain, benchWorkerEnv(topic, dataDir), startWorkerNodeFlags(workerMain))
  return { code, dataDir, service }
})
try {
  const urls = await Promise.all(workers.map((worker) => metricsUrlOf(worker.service.output)))
  const cpuAtStart = workers.map((worker) => cpuSeconds(worker.service.child.pid!))
  const loadBefore = loadavg()[0]!
  const producer = kafka.producer({ idempotent: true })
  await producer.connect()
  const tick = 100
  const started = performance.now()
  let sent = 0
  const sends: Promise<unknown>[] = []
  for (let step = 0; sent < count; step++) {
    const due = Math.min(count, Math.round((rate * (step + 1) * tick) / 1000))
    const events = Array.from({ length: due - sent }, (_, index) => pool.event(sent + index))
    const values = await Promise.all(events.map((event) => messageBytes(codec, event)))
    if (events.length > 0)
      sends.push(
        producer.send({
          topic,
          acks: -1,
          messages: events.map((event, index) => ({ key: event.data.session_id, value: values[index]! })),
        }),
      )
    sent += events.length
    const wait = started + (step + 1) * tick - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
  }
  await Promise.all(sends)
  await producer.disconnect()
  const achievedRate = count / ((performance.now() - started) / 1000)
  // Both stored everything before either stops (a stopped one would leave the other the machine).
  for (const url of urls)
    while ((await metricSum(url, 'worker_messages_consumed_total')) < count)
      await new Promise((resolve) => setTimeout(resolve, 100))
  const results = []
  for (const [index, worker] of workers.entries()) {
    const rssMb = peakRssMb(worker.service.child.pid!)
    const cpuMs = (cpuSeconds(worker.service.child.pid!) - cpuAtStart[index]!) * 1000
    await worker.service.stop()
    results.push({ code: worker.code, rssMb, cpuMs, ...(await freshness(worker.dataDir)) })
  }
  console.log(
    `${count} conversations at ${achievedRate.toFixed(0)} events/s (BENCH_RATE ${rate}), both workers at once; ` +
      `load ${loadBefore.toFixed(2)} / ${loadavg()[0]!.toFixed(2)}; A = ${dirs.A}, B = ${dirs.B}`,
  )
  console.log('| worker | p50 ms | p99 ms | conversations | ms CPU / conversation | peak RSS MB |')
  console.log('|---|---|---|---|---|---|')
  for (const result of results)
    console.log(
      `| ${result.code} | ${result.p50} | ${result.p99} | ${result.n} | ${(result.cpuMs / count).toFixed(2)} | ${result.rssMb.toFixed(0)} |`,
    )
} finally {
  for (const worker of workers) {
    await worker.service.stop()
    rmSync(worker.dataDir, { recursive: true, force: true })
  }
  await deleteBacklogTopic(kafka, topic)
}
