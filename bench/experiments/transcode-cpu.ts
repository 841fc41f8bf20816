import { execFileSync } from 'node:child_process'
import { transcodeConversation } from '../../core/event/json-avro-transcoder.ts'
import { classifyWebhook } from '../../services/ingress/classify-webhook.ts'
import { parseJsonBody } from '../../services/ingress/json-body.ts'
import { benchBodies } from '../ingress-load.ts'

// `node bench/experiments/transcode-cpu.ts`: is the fast path (the body's JSON bytes transcoded straight to
// Avro, json-avro-transcoder.ts) cheaper than today's way to the same bytes — parseJsonBody,
// then classifyWebhook with its validate-and-write walk — on the ingress benchmark's 500 bodies?
// Checks first that it gives the same bytes and session id for every body (and declines none),
// then measures CPU time per event (process.cpuUsage), alternating the two in one run (A, B, B,
// A, …) so a busy machine's swings hit both. BENCH_ONLY=transcode or =parse measures one side
// alone, in a process of its own (no code of the other warmed up beside it).
const rounds = Number(process.env.BENCH_ROUNDS ?? 10)
const eventsPerRound = Number(process.env.BENCH_EVENTS ?? 2000)
const bodies = benchBodies.map((body) => Buffer.from(body))
const ingest = { source: 'bench', receivedAt: 1_764_000_000_123 }

let declined = 0
for (const body of bodies) {
  const fast = transcodeConversation(body, ingest)
  const today = classifyWebhook(parseJsonBody(body), ingest)
  if (fast === undefined) declined++
  else if (
    today.kind !== 'conversation' ||
    today.sessionId !== fast.sessionId ||
    !today.avro.subarray(5).equals(fast.avro.subarray(5))
  )
    throw new Error('the fast path wrote other bytes than the walk: not comparable')
}
console.log(`${bodies.length} bodies, ${declined} declined by the fast path, the rest byte for byte the same`)

const sides: Record<string, (body: Buffer) => unknown> = {
  'parse+classify+walk': (body) => classifyWebhook(parseJsonBody(body), ingest),
  transcode: (body) => transcodeConversation(body, ingest),
}
const only = process.env.BENCH_ONLY
const names = Object.keys(sides).filter((name) => !only || name.startsWith(only))
let next = 0

function round(name: string): number {
  const side = sides[name]!
  const before = process.cpuUsage()
  for (let index = 0; index < eventsPerRound; index++) side(bodies[next++ % bodies.length]!)
  const used = process.cpuUsage(before)
  return (used.user + used.system) / eventsPerRound
}

console.log(execFileSync('uptime', { encoding: 'utf8' }).trim())
for (const name of names) round(name) // warm-up: JIT, scratch buffers
const results: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]))
for (let index = 0; index < rounds; index++) {
  const order = index % 2 === 0 ? names : [...names].reverse()
  for (const name of order) results[name]!.push(round(name))
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
for (const name of names) {
  const values = results[name]!
  console.log(
    `${name}: best ${Math.min(...values).toFixed(1)}, median ${median(values).toFixed(1)} µs CPU/event (rounds: ${values.map((value) => value.toFixed(0)).join(', ')})`,
  )
}
if (names.length === 2) {
  const [today, fast] = names.map((name) => results[name]!)
  console.log(
    `today / transcode: best ${(Math.min(...today!) / Math.min(...fast!)).toFixed(2)}×, median ${(median(today!) / median(fast!)).toFixed(2)}×`,
  )
}
console.log(execFileSync('uptime', { encoding: 'utf8' }).trim())
