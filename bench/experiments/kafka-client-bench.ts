import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { appendFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { createEventCodec, createSchemaRegistry } from '../../core/event/event-codec.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { createKafka, ensureTopics } from '../../core/kafka/kafka.ts'
import { createLogger } from '../../core/runtime/logger.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { kafkaBrokers, schemaRegistryUrl } from '../../test/stack/servers.ts'
import { machineLine, startService } from '../bench-process.ts'

// `npm run bench:kafka-client`: kafkajs against @platformatic/kafka, producer and consumer, in
// the same run, against the real broker and registry (bench/experiments/kafka-client-roles.ts does the
// work, one process per measurement). The two clients alternate (A, B, A, B, ...) so a change
// in the machine's load hits both; the load average is printed beside every figure. Appends the
// figures to bench/results/kafka-client.md. The decision rule (issue #13): switch a side only if
// the other client wins by ≥ 1.3× there and passes every Kafka test.
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const produceSeconds = Number(process.env.BENCH_SECONDS ?? 8)
const consumeTotal = Number(process.env.BENCH_MESSAGES ?? 12_000)
const clients = ['kafkajs', 'platformatic'] as const
type Client = (typeof clients)[number]
const roles = fileURLToPath(new URL('./kafka-client-roles.ts', import.meta.url))
const logger = createLogger('bench', 'warn')
const kafka = createKafka({ brokers: kafkaBrokers(), clientId: 'bench-kafka-client' }, logger)
const produceTopic = `bench-kafka-client-produce-${randomUUID()}`
const consumeTopic = `bench-kafka-client-consume-${randomUUID()}`
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim()
const load1 = () => loadavg()[0]!.toFixed(2)

async function fillConsumeTopic(): Promise<number> {
  const codec = await createEventCodec(createSchemaRegistry(schemaRegistryUrl()))
  const pool = generateConversations({ count: 500, seed: 7, historyItems: 40 })
  const producer = kafka.producer({ idempotent: true })
  await producer.connect()
  let bytes = 0
  for (let start = 0; start < consumeTotal; start += 250) {
    const messages = await Promise.all(
      Array.from({ length: Math.min(250, consumeTotal - start) }, async (_, index) => {
        const event = pool[(start + index) % pool.length]!
        const value = await codec.encode(toAvroRecord(event, { source: 'bench', receivedAt: Date.now() }))
        bytes += value.length
        return { key: randomUUID(), value }
      }),
    )
    await producer.send({ topic: consumeTopic, acks: -1, messages })
  }
  await producer.disconnect()
  return bytes / consumeTotal / 1024
}

interface Figures {
  client: Client
  perSecond: number
  cpuSeconds: number
  seconds: number
  loadBefore: string
}

async function runRole(role: 'produce' | 'consume', client: Client): Promise<Figures> {
  const loadBefore = load1()
  const service = startService(roles, {
    ROLE: role,
    CLIENT: client,
    TOPIC: role === 'produce' ? produceTopic : consumeTopic,
    KAFKA_BROKERS: kafkaBrokers(),
    SCHEMA_REGISTRY_URL: schemaRegistryUrl(),
    SECONDS: String(produceSeconds),
    TOTAL: String(consumeTotal),
  })
  const code = await new Promise<number | null>((resolve) => service.child.once('exit', resolve))
  const line = service.output
    .join('')
    .split('\n')
    .find((text) => text.startsWith('{"client"'))
  if (code !== 0 || !line)
    throw new Error(`${client} ${role} failed (exit ${code}):\n${service.output.join('').slice(-3000)}`)
  const figures = JSON.parse(line) as Figures
  console.log(`${role} ${client}: ${figures.perSecond.toFixed(0)}/s (load ${loadBefore})`)
  return { ...figures, loadBefore }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

function table(role: 'produce' | 'consume', runs: Figures[]): string[] {
  const of = (client: Client) => runs.filter((run) => run.client === client)
  const med = (client: Client) => median(of(client).map((run) => run.perSecond))
  const ratio = med('platformatic') / med('kafkajs')
  const cpuPer1000 = (client: Client) =>
    median(of(client).map((run) => (run.cpuSeconds / (run.perSecond * run.seconds)) * 1000))
  return [
    '| run (in order) | client | messages/s | load (1 min) before |',
    '|---|---|---|---|',
    ...runs.map(
      (run, index) => `| ${index + 1} | ${run.client} | ${run.perSecond.toFixed(0)} | ${run.loadBefore} |`,
    ),
    '',
    `median kafkajs ${med('kafkajs').toFixed(0)}/s, @platformatic/kafka ${med('platformatic').toFixed(0)}/s: ` +
      `**${ratio.toFixed(2)}×** (${role === 'produce' ? 'producer' : 'consumer'}; switch threshold 1.3×). ` +
      `Process CPU per 1,000 messages (incl. start-up): kafkajs ${cpuPer1000('kafkajs').toFixed(2)} s, ` +
      `@platformatic/kafka ${cpuPer1000('platformatic').toFixed(2)} s.`,
    '',
  ]
}

const admin = kafka.admin()
await admin.connect()
await ensureTopics(admin, [
  { topic: produceTopic, numPartitions: 6 },
  { topic: consumeTopic, numPartitions: 6 },
])
const uptimeAtStart = uptime()
const avroKb = await fillConsumeTopic()
const produceRuns: Figures[] = []
const consumeRuns: Figures[] = []
try {
  for (let round = 0; round < rounds; round++)
    for (const client of round % 2 === 0 ? clients : [...clients].reverse())
      produceRuns.push(await runRole('produce', client))
  for (let round = 0; round < rounds; round++)
    for (const client of round % 2 === 0 ? clients : [...clients].reverse())
      consumeRuns.push(await runRole('consume', client))
} finally {
  await admin.deleteTopics({ topics: [produceTopic, consumeTopic] }).catch(() => {})
  await admin.disconnect()
}

const lines = [
  `## ${new Date().toISOString()} — ${machineLine()}`,
  `\`uptime\` at the start: \`${uptimeAtStart}\`; at the end: \`${uptime()}\``,
  '',
  `**Producer**: 22 KB random (incompressible) values, random keys, murmur2 partitioning over 6 partitions, ` +
    `acks=all, idempotent, through the ingress's BatchingProducer (group commit, 2 batches in flight) ` +
    `with 32 concurrent callers; ${produceSeconds} s per run after a 2 s warm-up.`,
  '',
  ...table('produce', produceRuns),
  `**Consumer**: ${consumeTotal} generated conversations (40 items, ${avroKb.toFixed(1)} KB Avro each) ` +
    'fetched from the beginning (6 partitions, 1 MiB per partition, minBytes 1 MiB, maxWait 250 ms) and decoded ' +
    'with the registry client (@kafkajs/confluent-schema-registry), as bench/consume-decode-only.ts does.',
  '',
  ...table('consume', consumeRuns),
]
console.log(lines.join('\n'))
appendFileSync(new URL('../results/kafka-client.md', import.meta.url), `${lines.join('\n')}\n`)
