import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import avro from 'avsc'
import { benchBodies } from '../ingress-load.ts'

// `[BASE_DIR=<another checkout>] [BENCH_FAST=0] node bench/experiments/ingress-event-cpu.ts`: the CPU our own code spends per
// event, without HTTP or Kafka — body parse, PII hook, validate-and-map, Avro wire encoding,
// queue size accounting — on the ingress benchmark's bodies, in one process. With BASE_DIR, that
// checkout's modules and this one's alternate (A, B, B, A, …) so a busy machine's swings hit
// both; the figure is CPU time (process.cpuUsage) per event, median of the rounds.
const rounds = Number(process.env.BENCH_ROUNDS ?? 6)
const eventsPerRound = Number(process.env.BENCH_EVENTS ?? 5000)
const thisDir = fileURLToPath(new URL('..', import.meta.url))

// Unless BENCH_FAST=0, this checkout is also measured with the transcoder's fast path first (core/event/json-avro-transcoder.ts): `this+fast` beside `this`, A/B in one run.
async function pipeline(dir: string, fastPath = false) {
  const load = (path: string) => import(`${dir}/${path}`)
  const { transcodeConversation } = fastPath
    ? await load('core/event/json-avro-transcoder.ts')
    : { transcodeConversation: undefined }
  const { parseJsonBody } = await load('services/ingress/json-body.ts')
  const { classifyWebhook } = await load('services/ingress/classify-webhook.ts')
  const { toKafkaMessage } = await load('services/ingress/webhook-message.ts')
  const { messageBytes } = await load('services/ingress/batching-producer.ts')
  const { piiRedactions } = await load('core/privacy/pii/pii-settings.ts')
  const { createEventCodec } = await load('core/event/event-codec.ts')
  const { eventAvroSchema } = await load('core/event/event-schema.ts')
  // Stands in for the registry (no I/O here): the schema id and the writer schema it would return.
  const registry = {
    register: async () => ({ id: 1 }),
    getSchema: async () => avro.Type.forSchema(eventAvroSchema),
  }
  const codec = await createEventCodec(registry)
  const pii = piiRedactions({ PII_POLICY: '' }, ['bench'])
  const bodies = benchBodies.map((body) => Buffer.from(body))
  let next = 0
  return async function oneEvent() {
    const raw = bodies[next++ % bodies.length]!
    const redaction = pii('bench')
    const receivedAt = Date.now()
    // The fast path, when measured and no PII policy applies; it declines what it is not sure of.
    const fast =
      transcodeConversation && !redaction
        ? transcodeConversation(raw, { source: 'bench', receivedAt })
        : undefined
    let classified = fast && { kind: 'conversation', sessionId: fast.sessionId, avro: fast.avro }
    if (!classified) {
      const parsed = parseJsonBody(raw)
      const body = redaction ? redaction.redact(parsed) : parsed
      // (A checkout before the one walk took the body alone: the second argument is then ignored.)
      classified = classifyWebhook(body, { source: 'bench', receivedAt })
    }
    const { message } = await toKafkaMessage(classified, raw, 'bench', receivedAt, codec)
    return messageBytes(message)
  }
}

const candidates: Record<string, () => Promise<number>> = { this: await pipeline(thisDir) }
if (process.env.BENCH_FAST !== '0') candidates['this+fast'] = await pipeline(thisDir, true)
if (process.env.BASE_DIR) candidates.base = await pipeline(process.env.BASE_DIR)
const names = Object.keys(candidates)

async function round(name: string): Promise<number> {
  const oneEvent = candidates[name]!
  const before = process.cpuUsage()
  for (let index = 0; index < eventsPerRound; index++) await oneEvent()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / eventsPerRound
}

console.log(execFileSync('uptime', { encoding: 'utf8' }).trim())
for (const name of names) await round(name) // warm-up: JIT, scratch buffers
const results: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]))
for (let index = 0; index < rounds; index++) {
  const order = index % 2 === 0 ? names : [...names].reverse()
  for (const name of order) results[name]!.push(await round(name))
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
for (const name of names)
  console.log(
    `${name}: median ${median(results[name]!).toFixed(1)} µs CPU/event (rounds: ${results[name]!.map((value) => value.toFixed(0)).join(', ')})`,
  )
console.log(execFileSync('uptime', { encoding: 'utf8' }).trim())
