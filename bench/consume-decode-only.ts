import { createSchemaRegistry } from '../services/core/event-codec.ts'
import { createKafka } from '../services/core/kafka.ts'
import { createLogger } from '../services/core/logger.ts'

// The limit the worker is compared with (bench/worker-bench.ts): the same consumer settings and
// the same registry decoding as the worker, and nothing else. Prints one JSON line when `TOTAL`
// messages of `TOPIC` are decoded, then exits.
const topic = process.env.TOPIC!
const total = Number(process.env.TOTAL)
const maxBytesPerPartition = 1024 * 1024
const registry = createSchemaRegistry(process.env.SCHEMA_REGISTRY_URL!)
const kafka = createKafka(
  { brokers: process.env.KAFKA_BROKERS!, clientId: 'bench-decode' },
  createLogger('bench', 'warn'),
)
const consumer = kafka.consumer({
  groupId: `bench-decode-${Date.now()}`,
  maxBytesPerPartition,
  maxBytes: maxBytesPerPartition * 8,
  minBytes: 1024 * 1024,
  maxWaitTimeInMs: 250,
})
let decoded = 0
let firstAt = 0
await consumer.connect()
await consumer.subscribe({ topic, fromBeginning: true })
await consumer.run({
  autoCommit: false,
  eachBatchAutoResolve: false,
  partitionsConsumedConcurrently: 16,
  eachBatch: async ({ batch, resolveOffset }) => {
    if (firstAt === 0) firstAt = performance.now()
    for (const message of batch.messages) {
      try {
        await registry.decode(message.value!)
      } catch (error) {
        // e.g. the (in-memory) registry restarted and lost the schema: fail loudly, never hang
        process.stderr.write(`decode failed: ${(error as Error).message}\n`)
        process.exit(1)
      }
      decoded++
    }
    resolveOffset(batch.lastOffset())
    if (decoded >= total) {
      const seconds = (performance.now() - firstAt) / 1000
      process.stdout.write(`${JSON.stringify({ decoded, seconds, perSecond: decoded / seconds })}\n`)
      setImmediate(() => process.exit(0))
    }
  },
})
