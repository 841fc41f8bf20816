import { createSchemaRegistry } from '../core/event/event-codec.ts'
import { createPartitionConsumer } from '../core/kafka/kafka-consumer.ts'
import { createLogger } from '../core/runtime/logger.ts'

// The limit the worker is compared with (bench/worker-bench.ts): the worker's own consumer
// (core/kafka/kafka-consumer.ts, @platformatic/kafka, the worker's fetch settings) and the same
// registry decoding as the worker, and nothing else. Prints one JSON line when `TOTAL` messages of
// `TOPIC` are decoded, then exits. (Until #13 this ran on kafkajs: @platformatic/kafka decodes
// more per second, bench/results/kafka-client.md, so the limit runs on it too.)
const topic = process.env.TOPIC!
const total = Number(process.env.TOTAL)
const maxBytesPerPartition = 1024 * 1024
const registry = createSchemaRegistry(process.env.SCHEMA_REGISTRY_URL!)
const consumer = createPartitionConsumer({
  settings: { brokers: process.env.KAFKA_BROKERS!, clientId: 'bench-decode' },
  groupId: `bench-decode-${Date.now()}`,
  topic,
  sessionTimeoutMs: 30_000,
  heartbeatIntervalMs: 3_000,
  maxBytesPerPartition,
  maxBytes: maxBytesPerPartition * 8,
  minBytes: 1024 * 1024,
  maxWaitMs: 250,
  retryDelayMs: () => 200,
  logger: createLogger('bench', 'warn'),
})
let decoded = 0
let firstAt = 0
await consumer.run(async (batch) => {
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
  if (decoded >= total) {
    const seconds = (performance.now() - firstAt) / 1000
    const cpu = process.cpuUsage()
    process.stdout.write(
      `${JSON.stringify({ decoded, seconds, perSecond: decoded / seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`,
    )
    setImmediate(() => process.exit(0))
  }
})
