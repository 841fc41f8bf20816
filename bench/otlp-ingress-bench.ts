import { appendFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { ingressNodeFlags } from '../services/ingress/main.ts'
import { machineLine, peakRssMb, startService, waitForHttp } from './bench-process.ts'
import { benchConnections, ingressEnv, postConversations } from './ingress-load.ts'
import { otlpBodies, postTraces, spansPerRequest } from './otlp-load.ts'
import { cpuSeconds } from './process-cpu.ts'

// `npm run bench:otlp-ingress`: spans/s the OTLP receiver (POST /v1/traces) accepts from the
// frameworks' real export requests (gzipped protobuf, bench/otlp-load.ts) against the real
// ingress, Kafka and registry; in the same run the limit (a bare Fastify route that only reads
// and inflates the same bodies) and the webhook route's figure under its own benchmark load
// (bench/ingress-load.ts), for comparison. Appends the figures to bench/results/otlp.md.
const durationSeconds = Number(process.env.BENCH_SECONDS ?? 15)
const ports = { ingress: 18_280, bare: 18_281 }

type Load = (port: number, seconds: number) => ReturnType<typeof postTraces>

async function measure(
  script: string,
  env: Record<string, string>,
  port: number,
  ready: string,
  load: Load,
  nodeFlags: string[] = [],
) {
  const service = startService(
    fileURLToPath(new URL(script, import.meta.url)),
    { ...env, PORT: String(port) },
    nodeFlags,
  )
  try {
    await waitForHttp(`http://127.0.0.1:${port}${ready}`)
    await load(port, durationSeconds) // warm-up
    const cpuBefore = cpuSeconds(service.child.pid!)
    const result = await load(port, durationSeconds)
    return {
      /** CPU of the service's process per answered request, µs: steadier than rates on a shared machine. */
      cpuMicros: ((cpuSeconds(service.child.pid!) - cpuBefore) / Math.max(result['2xx'], 1)) * 1e6,
      perSecond: result['2xx'] / durationSeconds,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      rssMb: peakRssMb(service.child.pid!),
    }
  } finally {
    await service.stop()
  }
}

const loadBefore = loadavg()[0]!
const otlp = await measure(
  '../services/ingress/main.ts',
  ingressEnv(ports.ingress),
  ports.ingress,
  '/readyz',
  postTraces,
  ingressNodeFlags,
)
const bare = await measure('./bare-otlp-server.ts', {}, ports.bare, '/healthz', postTraces)
const webhook = await measure(
  '../services/ingress/main.ts',
  ingressEnv(ports.ingress),
  ports.ingress,
  '/readyz',
  postConversations,
  ingressNodeFlags,
)

const averageKb = otlpBodies.reduce((sum, { body }) => sum + body.length, 0) / otlpBodies.length / 1024
const lines = [
  `## ${new Date().toISOString()} — ${machineLine()}`,
  `load average (1 min) at start / end: ${loadBefore.toFixed(2)} / ${loadavg()[0]!.toFixed(2)} (compare figures within one run)`,
  `bodies: ${otlpBodies.length} export requests (LiveKit 53 spans, Pipecat 18, fresh ids each), ${spansPerRequest.toFixed(1)} spans and ${averageKb.toFixed(1)} KB gzipped protobuf on average; ${benchConnections} connections, ${durationSeconds} s (after a warm-up run)`,
  '',
  '| figure | measured |',
  '|---|---|',
  `| OTLP receiver accepted spans/s | **${(otlp.perSecond * spansPerRequest).toFixed(0)}** (${otlp.perSecond.toFixed(0)} requests/s) |`,
  `| OTLP receiver latency p50 / p99 | ${otlp.p50} / ${otlp.p99} ms |`,
  `| OTLP receiver CPU per request / per span (ingress process) | ${otlp.cpuMicros.toFixed(0)} / ${(otlp.cpuMicros / spansPerRequest).toFixed(1)} µs |`,
  `| bare Fastify read + gunzip only (the limit) | ${(bare.perSecond * spansPerRequest).toFixed(0)} spans/s (${bare.perSecond.toFixed(0)} requests/s) |`,
  `| ratio receiver / bare | ${(otlp.perSecond / bare.perSecond).toFixed(2)} |`,
  `| OTLP receiver peak RSS | ${otlp.rssMb.toFixed(0)} MB |`,
  `| OTLP receiver non-2xx / errors | ${otlp.non2xx} / ${otlp.errors} |`,
  `| webhook route, same run (bench:ingress load: 40-item conversations, ~22 KB JSON) | ${webhook.perSecond.toFixed(0)} events/s, p99 ${webhook.p99} ms, ${webhook.cpuMicros.toFixed(0)} µs CPU per event, non-2xx ${webhook.non2xx} |`,
  '',
]
console.log(lines.join('\n'))
appendFileSync(new URL('./results/otlp.md', import.meta.url), `${lines.join('\n')}\n`)
