import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { conversationPool } from '../bench-conversations.ts'
import { abCheckouts, peakRssMb } from '../bench-process.ts'
import { cpuSeconds } from '../process-cpu.ts'
import {
  benchKafkaAndCodec,
  createBacklogTopic,
  deleteBacklogTopic,
  metricSum,
  metricsUrlOf,
  publishAtRate,
  startBenchWorker,
  storedFreshness,
} from '../worker-backlog.ts'

// `node bench/ab/worker-freshness-ab.ts`: freshness (publish → queryable) of the workers of two
// checkouts (A: BENCH_A_DIR, required; B: BENCH_B_DIR, default this one) at the same
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
const { kafka, codec } = await benchKafkaAndCodec('bench-freshness-ab')
const pool = conversationPool()
const topic = `bench.freshness-ab.${randomUUID()}`
const count = Math.round(rate * seconds)

await createBacklogTopic(kafka, topic)
const workers = (['A', 'B'] as Code[]).map((code) => {
  const dataDir = mkdtempSync(join(tmpdir(), `va-bench-fresh-ab-${code}-`))
  const workerMain = `${dirs[code]}/services/worker/main.ts`
  const service = startBenchWorker(workerMain, topic, dataDir)
  return { code, dataDir, service }
})
try {
  const urls = await Promise.all(workers.map((worker) => metricsUrlOf(worker.service.output)))
  const cpuAtStart = workers.map((worker) => cpuSeconds(worker.service.child.pid!))
  const loadBefore = loadavg()[0]!
  const achievedRate = await publishAtRate({ kafka, codec, conversation: pool.event, topic, rate, count })
  // Both stored everything before either stops (a stopped one would leave the other the machine).
  for (const url of urls)
    while ((await metricSum(url, 'worker_messages_consumed_total')) < count)
      await new Promise((resolve) => setTimeout(resolve, 100))
  const results = []
  for (const [index, worker] of workers.entries()) {
    const rssMb = peakRssMb(worker.service.child.pid!)
    const cpuMs = (cpuSeconds(worker.service.child.pid!) - cpuAtStart[index]!) * 1000
    await worker.service.stop()
    results.push({ code: worker.code, rssMb, cpuMs, ...(await storedFreshness(worker.dataDir)) })
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
