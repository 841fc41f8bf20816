import { randomBytes, randomUUID } from 'node:crypto'
import { Consumer as PlatformaticConsumer, Producer as PlatformaticProducer } from '@platformatic/kafka'
import { createSchemaRegistry } from '../../core/event/event-codec.ts'
import { createKafka, defaultPartitioner } from '../../core/kafka/kafka.ts'
import { createLogger } from '../../core/runtime/logger.ts'
import { BatchingProducer, type SendBatch } from '../../services/ingress/batching-producer.ts'

// One side of one Kafka client, measured in a process of its own (bench/experiments/kafka-client-bench.ts
// starts it and reads the one JSON line it prints):
//  ROLE=produce: `CONCURRENCY` callers each publish 22 KB messages one after another through the
//    ingress's own BatchingProducer (group commit, 2 batches in flight, acks=all, idempotent),
//    like the ingress under 32 connections; acknowledged messages/s over `SECONDS`.
//  ROLE=consume: `TOTAL` Avro messages of `TOPIC` fetched and decoded through the registry (the
//    worker benchmark's consume+decode limit, bench/consume-decode-only.ts); decoded/s.
// CLIENT=kafkajs or platformatic chooses the library.
const role = process.env.ROLE
const client = process.env.CLIENT
const topic = process.env.TOPIC!
const brokers = process.env.KAFKA_BROKERS!
const logger = createLogger('bench', 'warn')
const print = (figures: Record<string, number | string>) =>
  process.stdout.write(`${JSON.stringify({ client, role, ...figures })}\n`)

async function kafkajsSender(): Promise<{ send: SendBatch; close: () => Promise<void> }> {
  const kafka = createKafka({ brokers, clientId: 'bench-kafkajs' }, logger)
  // The ingress's producer settings (services/ingress/ingress-connections.ts).
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 5,
    createPartitioner: defaultPartitioner,
    retry: { retries: 3 },
  })
  await producer.connect()
  return {
    send: (topicMessages) => producer.sendBatch({ acks: -1, topicMessages }).then(() => undefined),
    close: () => producer.disconnect(),
  }
}

async function platformaticSender(): Promise<{ send: SendBatch; close: () => Promise<void> }> {
  const producer = new PlatformaticProducer({
    clientId: 'bench-platformatic',
    bootstrapBrokers: brokers.split(','),
    idempotent: true,
    acks: -1,
    retries: 3,
  })
  return {
    send: (topicMessages) =>
      producer
        .send({
          messages: topicMessages.flatMap(({ topic, messages }) =>
            messages.map((message) => ({
              topic,
              key: message.key === null ? undefined : Buffer.from(message.key),
              value: message.value,
            })),
          ),
        })
        .then(() => undefined),
    close: () => producer.close(),
  }
}

async function produce(): Promise<void> {
  const seconds = Number(process.env.SECONDS ?? 8)
  const concurrency = Number(process.env.CONCURRENCY ?? 32)
  const sender = client === 'kafkajs' ? await kafkajsSender() : await platformaticSender()
  const batching = new BatchingProducer(sender.send, {
    lingerMs: 1,
    maxBatchBytes: 4 * 1024 * 1024,
    maxInFlight: 2,
    timeoutMs: 30_000,
    maxQueuedBytes: 64 * 1024 * 1024,
    defaultMessageLimit: 8 * 1024 * 1024,
    isSizeRefusal: () => false,
  })
  const values = Array.from({ length: 64 }, () => randomBytes(22 * 1024))
  let acknowledged = 0
  let counting = false
  let running = true
  const caller = async (index: number) => {
    for (let sent = 0; running; sent++) {
      await batching.send(topic, { key: randomUUID(), value: values[(index + sent) % values.length]! })
      if (counting) acknowledged++
    }
  }
  const callers = Array.from({ length: concurrency }, (_, index) => caller(index))
  await new Promise((resolve) => setTimeout(resolve, 2_000)) // warm-up: connections, metadata, JIT
  counting = true
  const started = performance.now()
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
  counting = false
  const elapsed = (performance.now() - started) / 1000
  const cpu = process.cpuUsage()
  running = false
  await Promise.all(callers)
  await sender.close()
  print({
    perSecond: acknowledged / elapsed,
    acknowledged,
    seconds: elapsed,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  })
}

async function consume(): Promise<void> {
  const total = Number(process.env.TOTAL)
  const registry = createSchemaRegistry(process.env.SCHEMA_REGISTRY_URL!)
  const maxBytesPerPartition = 1024 * 1024
  let decoded = 0
  let firstAt = 0
  const done = () => {
    const seconds = (performance.now() - firstAt) / 1000
    const cpu = process.cpuUsage()
    print({ perSecond: decoded / seconds, decoded, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 })
    setImmediate(() => process.exit(0))
  }
  const decode = async (value: Buffer) => {
    try {
      await registry.decode(value)
    } catch (error) {
      process.stderr.write(`decode failed: ${(error as Error).message}\n`)
      process.exit(1)
    }
    decoded++
  }
  if (client === 'kafkajs') {
    // The worker's consumer settings, as bench/consume-decode-only.ts uses them.
    const kafka = createKafka({ brokers, clientId: 'bench-kafkajs' }, logger)
    const consumer = kafka.consumer({
      groupId: `bench-kafkajs-${randomUUID()}`,
      maxBytesPerPartition,
      maxBytes: maxBytesPerPartition * 8,
      minBytes: 1024 * 1024,
      maxWaitTimeInMs: 250,
    })
    await consumer.connect()
    await consumer.subscribe({ topic, fromBeginning: true })
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 16,
      eachBatch: async ({ batch, resolveOffset }) => {
        if (firstAt === 0) firstAt = performance.now()
        for (const message of batch.messages) await decode(message.value!)
        resolveOffset(batch.lastOffset())
        if (decoded >= total) done()
      },
    })
    return
  }
  const consumer = new PlatformaticConsumer({
    clientId: 'bench-platformatic',
    bootstrapBrokers: brokers.split(','),
    groupId: `bench-platformatic-${randomUUID()}`,
    maxBytesPerPartition,
    maxBytes: maxBytesPerPartition * 8,
    minBytes: 1024 * 1024,
    maxWaitTime: 250,
  })
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false })
  for await (const message of stream) {
    if (firstAt === 0) firstAt = performance.now()
    await decode(message.value as Buffer)
    if (decoded >= total) return done()
  }
}

if (role === 'produce') await produce()
else if (role === 'consume') await consume()
else throw new Error(`ROLE must be produce or consume, not ${role}`)
