import { appendFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { ingressNodeFlags } from '../services/ingress/main.ts'
import { machineLine, peakRssMb, startService, waitForHttp } from './bench-process.ts'
import { benchBodies, benchConnections, ingressEnv, postConversations } from './ingress-load.ts'

// `npm run bench:ingress`: realistic ~40-item conversations against the real ingress (real
// Kafka and registry), and in the same run against a bare Fastify route that only parses the
// same bodies: the limit. Prints the figures beside the design's targets and appends them to
// bench/results/ingress.md.
const targets = { eventsPerSecond: 3000, p99Ms: 50, ratio: 0.5, rssMb: 200 }
const durationSeconds = Number(process.env.BENCH_SECONDS ?? 15)
const connections = benchConnections
const ingressPort = 18_180
const barePort = 18_181

const bodies = benchBodies
const averageKb = bodies.reduce((sum, body) => sum + body.length, 0) / bodies.length / 1024

async function load(port: number) {
  const result = await postConversations(port, durationSeconds)
  const accepted = result['2xx']
  return {
    perSecond: accepted / durationSeconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  }
}

async function measure(
  script: string,
  env: Record<string, string>,
  port: number,
  path: string,
  nodeFlags: string[] = [],
) {
  const service = startService(
    fileURLToPath(new URL(script, import.meta.url)),
    {
      ...env,
      PORT: String(port),
    },
    nodeFlags,
  )
  try {
    await waitForHttp(`http://127.0.0.1:${port}${path}`)
    await load(port) // warm-up
    const figures = await load(port)
    return { ...figures, rssMb: peakRssMb(service.child.pid!) }
  } finally {
    await service.stop()
  }
}

const loadBefore = loadavg()[0]!
const ingress = await measure(
  '../services/ingress/main.ts',
  ingressEnv(ingressPort),
  ingressPort,
  '/readyz',
  ingressNodeFlags,
)
const bare = await measure('./bare-fastify-server.ts', {}, barePort, '/healthz')

const ratio = ingress.perSecond / bare.perSecond
const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES')
const lines = [
  `## ${new Date().toISOString()} — ${machineLine()}`,
  `load average (1 min) at start / end: ${loadBefore.toFixed(2)} / ${loadavg()[0]!.toFixed(2)} (compare figures within one run)`,
  `bodies: ${bodies.length} distinct conversations, 40 history items, ${averageKb.toFixed(1)} KB average; ${connections} connections, ${durationSeconds} s (after a warm-up run)`,
  '',
  '| figure | measured | target | |',
  '|---|---|---|---|',
  `| ingress accepted events/s | ${ingress.perSecond.toFixed(0)} | ≥ ${targets.eventsPerSecond} | ${verdict(ingress.perSecond >= targets.eventsPerSecond)} |`,
  `| ingress latency p50 / p99 | ${ingress.p50} / ${ingress.p99} ms | p99 ≤ ${targets.p99Ms} ms | ${verdict(ingress.p99 <= targets.p99Ms)} |`,
  `| bare Fastify parse-only events/s (the limit) | ${bare.perSecond.toFixed(0)} | — | |`,
  `| ratio ingress / bare | ${ratio.toFixed(2)} | ≥ ${targets.ratio} | ${verdict(ratio >= targets.ratio)} |`,
  `| ingress peak RSS | ${ingress.rssMb.toFixed(0)} MB | ≤ ${targets.rssMb} MB | ${verdict(ingress.rssMb <= targets.rssMb)} |`,
  `| ingress non-2xx / errors | ${ingress.non2xx} / ${ingress.errors} | 0 | |`,
  '',
]
console.log(lines.join('\n'))
appendFileSync(new URL('./results/ingress.md', import.meta.url), `${lines.join('\n')}\n`)
