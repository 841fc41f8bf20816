import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { ingressNodeFlags } from '../../services/ingress/main.ts'
import { peakRssMb, startService, waitForHttp } from '../bench-process.ts'
import { ingressEnv, postConversations, withEnvChanges } from '../ingress-load.ts'
import { cpuSeconds } from '../process-cpu.ts'

// `BASE_DIR=<another checkout> node bench/ab/ingress-ab.ts`: this checkout's ingress against
// another's (e.g. `git archive <commit>` unpacked, node_modules linked), alternating A, B, B, A, …
// under the same load as bench/ingress-bench.ts, so a busy, shared machine's swings hit both.
// Prints one line per run with the 1-minute load average; nothing is written.
// BASE_ENV / THIS_ENV ('NAME=value -OTHER': set NAME, drop OTHER from the ingress's environment)
// and BASE_FLAGS / THIS_FLAGS (node flags instead of ingressNodeFlags) compare settings of the
// process: BASE_DIR may then be this same checkout.
const port = 18_182
const baseDir = process.env.BASE_DIR
if (!baseDir) throw new Error('BASE_DIR must name the checkout to compare with')
const words = (text: string | undefined) => (text ?? '').split(/\s+/).filter(Boolean)
const variant = (prefix: 'BASE' | 'THIS') => ({
  env: withEnvChanges(ingressEnv(port), process.env[`${prefix}_ENV`]),
  flags:
    process.env[`${prefix}_FLAGS`] === undefined ? ingressNodeFlags : words(process.env[`${prefix}_FLAGS`]),
})
const variants = { base: variant('BASE'), this: variant('THIS') }
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const seconds = Number(process.env.BENCH_SECONDS ?? 15)
const checkouts = {
  base: `${baseDir}/services/ingress/main.ts`,
  this: fileURLToPath(new URL('../../services/ingress/main.ts', import.meta.url)),
}

/** CPU seconds (user + system) a process used so far; less swayed by a busy machine than a rate. */
/** Resident memory now (VmRSS): what the code loaded and the connections hold before any load. */
function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024
}

/** Seconds the ingress spent in garbage collection so far (its /metrics, every kind). */
async function gcSeconds(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  let total = 0
  for (const match of text.matchAll(/^nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm))
    total += Number(match[1])
  return total
}

async function run(name: keyof typeof checkouts) {
  const { env, flags } = variants[name]
  const service = startService(checkouts[name], env, flags)
  try {
    await waitForHttp(`http://127.0.0.1:${port}/readyz`)
    const readyRss = rssMb(service.child.pid!)
    const load = (duration: number) => postConversations(port, duration)
    await load(5) // warm-up
    const before = loadavg()[0]!.toFixed(2)
    const cpuBefore = cpuSeconds(service.child.pid!)
    const gcBefore = await gcSeconds()
    const result = await load(seconds)
    const cpuMsPerEvent = ((cpuSeconds(service.child.pid!) - cpuBefore) * 1000) / result['2xx']
    const gcMsPerEvent = (((await gcSeconds()) - gcBefore) * 1000) / result['2xx']
    console.log(
      `${name}: ${(result['2xx'] / seconds).toFixed(0)} accepted/s, p50 ${result.latency.p50} / p99 ${result.latency.p99} ms, ` +
        `CPU ${cpuMsPerEvent.toFixed(2)} ms/event (GC ${gcMsPerEvent.toFixed(3)}), non-2xx ${result.non2xx}, RSS at ready ${readyRss.toFixed(0)} MB, peak RSS ${peakRssMb(service.child.pid!).toFixed(0)} MB, load ${before}`,
    )
  } finally {
    await service.stop()
  }
}

console.log(execFileSync('uptime', { encoding: 'utf8' }).trim())
for (const name of ['base', 'this'] as const)
  console.log(
    `${name}: MALLOC_ARENA_MAX=${variants[name].env.MALLOC_ARENA_MAX ?? '(unset)'}, flags ${variants[name].flags.join(' ')}`,
  )
for (let round = 0; round < rounds; round++)
  for (const name of round % 2 === 0 ? (['base', 'this'] as const) : (['this', 'base'] as const))
    await run(name)
console.log(execFileSync('uptime', { encoding: 'utf8' }).trim())
