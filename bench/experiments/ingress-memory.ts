import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ingressNodeFlags } from '../../services/ingress/main.ts'
import { peakRssMb, startService, waitForHttp } from '../bench-process.ts'
import { ingressEnv, postConversations, withEnvChanges } from '../ingress-load.ts'
import { cpuSeconds } from '../process-cpu.ts'

// `[BASE_DIR=<checkout>] node bench/experiments/ingress-memory.ts`: what the ingress's resident memory is
// under the benchmark's load. process.memoryUsage() is sampled every 100 ms inside the ingress
// (bench/experiments/ingress-memory-sampler.ts); printed: the samples at ready and at the highest RSS, split
// into the V8 heap (total, used), ArrayBuffers (Buffers: bodies, Avro messages, Kafka requests)
// and the rest (code, the young generation's reserve, malloc's free lists), and the kernel's peak.
// INGRESS_ENV ('NAME=value -OTHER': set NAME, drop OTHER) and INGRESS_FLAGS (node flags instead of ingressNodeFlags) try
// settings of the process. MEMORY_TIMELINE=1 prints the highest sample of each second of the load.
const seconds = Number(process.env.BENCH_SECONDS ?? 15)
const port = 18_194
const dir = process.env.BASE_DIR ?? fileURLToPath(new URL('..', import.meta.url))
const samplesDir = mkdtempSync(join(tmpdir(), 'ingress-memory-'))
const samplesFile = join(samplesDir, 'samples.jsonl')
const env = withEnvChanges(ingressEnv(port), process.env.INGRESS_ENV)
const flags =
  process.env.INGRESS_FLAGS === undefined
    ? ingressNodeFlags
    : process.env.INGRESS_FLAGS.split(/\s+/).filter(Boolean)
const sampler = fileURLToPath(new URL('./ingress-memory-sampler.ts', import.meta.url))

interface Sample {
  at: number
  rss: number
  heapTotal: number
  heapUsed: number
  external: number
  arrayBuffers: number
  anon: number
  fileBacked: number
  spaces: Record<string, number>
  scavenges: number
  markCompacts: number
}
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0)
const describe = (sample: Sample) =>
  `RSS ${mb(sample.rss)} MB = heap ${mb(sample.heapTotal)} (used ${mb(sample.heapUsed)}) + ArrayBuffers ${mb(sample.arrayBuffers)} ` +
  `+ other external ${mb(sample.external - sample.arrayBuffers)} + rest ${mb(sample.rss - sample.heapTotal - sample.external)}` +
  ` | kernel: anonymous ${mb(sample.anon)}, file-backed ${mb(sample.fileBacked)}` +
  ` | heap spaces: ${['new_space', 'old_space', 'code_space', 'large_object_space', 'new_large_object_space'].map((space) => `${space} ${mb(sample.spaces[space] ?? 0)}`).join(', ')}`
/** Per second of the load: the highest RSS and the split of that sample, to see whether the peak is
 *  a burst (start-up, JIT warm-up) or steady. */
function timeline(samples: Sample[], from: number): string[] {
  const seconds = new Map<number, Sample>()
  for (const sample of samples) {
    const second = Math.floor((sample.at - from) / 1000)
    if (sample.rss > (seconds.get(second)?.rss ?? 0)) seconds.set(second, sample)
  }
  return [...seconds].map(
    ([second, sample]) =>
      `  s${String(second).padStart(2)}: RSS ${mb(sample.rss)} heap ${mb(sample.heapTotal)} ArrayBuffers ${mb(sample.arrayBuffers)} rest ${mb(sample.rss - sample.heapTotal - sample.external)} anon ${mb(sample.anon)} file ${mb(sample.fileBacked)}`,
  )
}

console.log(execFileSync('uptime', { encoding: 'utf8' }).trim())
console.log(
  `MALLOC_ARENA_MAX=${env.MALLOC_ARENA_MAX ?? '(unset)'} INGRESS_ENV='${process.env.INGRESS_ENV ?? ''}', flags ${flags.join(' ')}`,
)
const service = startService(
  `${dir}/services/ingress/main.ts`,
  { ...env, MEMORY_SAMPLES_FILE: samplesFile },
  [...flags, `--import=${sampler}`],
)
try {
  await waitForHttp(`http://127.0.0.1:${port}/readyz`)
  await new Promise((resolve) => setTimeout(resolve, 300))
  const samples = () =>
    readFileSync(samplesFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Sample)
  const ready = samples().at(-1)!
  const cpuBefore = cpuSeconds(service.child.pid!)
  const result = await postConversations(port, seconds)
  const under = samples().filter((sample) => sample.at > ready.at)
  const peak = under.reduce((highest, sample) => (sample.rss > highest.rss ? sample : highest))
  const max = (key: 'heapTotal' | 'arrayBuffers' | 'external') =>
    mb(Math.max(...under.map((sample) => sample[key])))
  console.log(
    `${(result['2xx'] / seconds).toFixed(0)} accepted/s, CPU ${(((cpuSeconds(service.child.pid!) - cpuBefore) * 1000) / result['2xx']).toFixed(2)} ms/event, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`,
  )
  if (process.env.MEMORY_TIMELINE) console.log(timeline(under, ready.at).join('\n'))
  const last = under.at(-1)!
  console.log(
    `collections under load: ${last.scavenges - ready.scavenges} scavenges, ${last.markCompacts - ready.markCompacts} mark-compacts`,
  )
  console.log(`at ready:     ${describe(ready)}`)
  console.log(`at peak RSS:  ${describe(peak)}`)
  console.log(
    `highest under load: heap total ${max('heapTotal')}, ArrayBuffers ${max('arrayBuffers')}, external ${max('external')} MB; kernel's peak RSS (VmHWM) ${peakRssMb(service.child.pid!).toFixed(0)} MB`,
  )
} finally {
  await service.stop()
  rmSync(samplesDir, { recursive: true, force: true })
}
console.log(execFileSync('uptime', { encoding: 'utf8' }).trim())
