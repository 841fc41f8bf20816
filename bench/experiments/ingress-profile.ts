import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ingressNodeFlags } from '../../services/ingress/main.ts'
import { startService, waitForHttp } from '../bench-process.ts'
import { ingressEnv, postConversations } from '../ingress-load.ts'

// `node bench/experiments/ingress-profile.ts`: where the ingress's CPU goes under the benchmark's load
// (bench/ingress-bench.ts's bodies and connections, real Kafka and registry). Runs the ingress
// with --cpu-prof for BENCH_SECONDS and prints self time by library and by function, the basis
// of "where the time goes" in bench/results/ingress.md.
const seconds = Number(process.env.BENCH_SECONDS ?? 15)
const port = 18_190
const profileDir = mkdtempSync(join(tmpdir(), 'ingress-profile-'))
const service = startService(
  fileURLToPath(new URL('../../services/ingress/main.ts', import.meta.url)),
  ingressEnv(port),
  [...ingressNodeFlags, '--cpu-prof', `--cpu-prof-dir=${profileDir}`],
)
await waitForHttp(`http://127.0.0.1:${port}/readyz`)
const result = await postConversations(port, seconds)
await service.stop()
console.log(
  `accepted ${(result['2xx'] / seconds).toFixed(0)}/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`,
)

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}
const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'))!
const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}
// PROFILE_OUT=<file>: keep the profile (e.g. to open in a profiler or walk its callers).
if (process.env.PROFILE_OUT) copyFileSync(join(profileDir, file), process.env.PROFILE_OUT)
rmSync(profileDir, { recursive: true, force: true })

const libraries: Array<[RegExp, string]> = [
  [/@platformatic\/kafka/, '@platformatic/kafka (producer)'],
  [/kafkajs/, 'kafkajs (admin)'],
  [/\/avsc\//, 'avsc (Avro writer)'],
  [/secure-json-parse/, 'secure-json-parse'],
  [/fastify|find-my-way|avvio|light-my-request/, 'fastify'],
  [/pino/, 'pino'],
  [/prom-client/, 'prom-client'],
  [/event-validation|storable-timestamp|validating-event-encoder/, 'ours: validate + map walk'],
  [/event-codec|avro-event-writer/, 'ours: Avro writer + wire encoder'],
  [/json-body/, 'ours: json-body (UTF-8 decode, JSON.parse)'],
  [/\/services\//, 'ours: other'],
]
const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
const byLibrary = new Map<string, number>()
const byFunction = new Map<string, number>()
let busy = 0
for (const [index, sample] of profile.samples.entries()) {
  const { functionName, url, lineNumber } = nodes.get(sample)!.callFrame
  if (functionName === '(idle)') continue
  const micros = profile.timeDeltas[index] ?? 0
  busy += micros
  // The walk's code is generated (new Function): no url, a name of its own.
  const library =
    (url === '' && functionName.startsWith('checkWrite') ? 'ours: validate + map walk' : undefined) ??
    libraries.find(([pattern]) => pattern.test(url))?.[1] ??
    (url === '' || url.startsWith('node:')
      ? `${functionName} (V8/Node)`
      : url.replace(/.*node_modules\//, ''))
  byLibrary.set(library, (byLibrary.get(library) ?? 0) + micros)
  const name = `${functionName || '(anonymous)'} ${url.replace(/.*(node_modules|services)\//, '')}:${lineNumber}`
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros)
}
const top = (entries: Map<string, number>, count: number) =>
  [...entries]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, micros]) => `${((100 * micros) / busy).toFixed(1).padStart(5)}%  ${name}`)
console.log(`busy ${(busy / 1e6).toFixed(1)} s of CPU in the main thread; self time by library:`)
console.log(top(byLibrary, 20).join('\n'))
console.log('by function:')
console.log(top(byFunction, 30).join('\n'))
