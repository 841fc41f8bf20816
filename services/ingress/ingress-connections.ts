import type { Config } from '../core/env.ts'
import { createEventCodec, createSchemaRegistry, type EventCodec } from '../core/event-codec.ts'
import { createKafka, defaultPartitioner, ensureTopics } from '../core/kafka.ts'
import type { Logger } from '../core/logger.ts'
import { topics } from '../core/topics.ts'
import { BatchingProducer } from './batching-producer.ts'

// Kafka and the schema registry for the ingress. It starts even when they are down (and then
// answers 503): topics, producer and schema registration are retried in the background until
// they succeed, and readiness says which one is missing.
const maxMessageBytes = String(20 * 1024 * 1024)

export interface IngressConnections {
  codec: () => EventCodec | undefined
  producer: BatchingProducer
  readiness: () => Promise<{ ready: boolean; checks: Record<string, string> }>
  close: () => Promise<void>
}

async function retryForever(
  name: string,
  logger: Logger,
  stopped: () => boolean,
  attempt: () => Promise<void>,
) {
  for (let delay = 500; !stopped(); delay = Math.min(delay * 2, 10_000)) {
    try {
      await attempt()
      logger.info(`${name}: ok`)
      return
    } catch (error) {
      logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        `${name} failed; retrying in ${delay} ms`,
      )
      await new Promise((resolve) => setTimeout(resolve, delay))
    }
  }
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms)),
  ])
}

export function connectIngress(config: Config, logger: Logger): IngressConnections {
  const kafka = createKafka(
    { brokers: config.KAFKA_BROKERS, clientId: `${config.KAFKA_CLIENT_ID}-ingress` },
    logger,
  )
  const admin = kafka.admin()
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 5,
    createPartitioner: defaultPartitioner,
    // Bounded: a request waits at most INGRESS_PUBLISH_TIMEOUT_MS anyway, and the platform
    // retries on 503. (kafkajs warns once that this weakens its exactly-once claim; the worker
    // deduplicates by session_id, so a retried delivery is never counted twice.)
    retry: { retries: 5 },
  })
  const registry = createSchemaRegistry(config.SCHEMA_REGISTRY_URL)
  let codec: EventCodec | undefined
  let kafkaConnected = false
  let stopped = false

  const kafkaSetup = retryForever(
    'kafka setup (topics, producer)',
    logger,
    () => stopped,
    async () => {
      await admin.connect()
      const configEntries = [{ name: 'max.message.bytes', value: maxMessageBytes }]
      await ensureTopics(
        admin,
        Object.values(topics).map((topic) => ({ topic, configEntries })),
      )
      await producer.connect()
      kafkaConnected = true
    },
  )
  const registrySetup = retryForever(
    'schema registration',
    logger,
    () => stopped,
    async () => {
      codec = await createEventCodec(registry)
      logger.info({ schemaId: codec.schemaId }, 'event schema registered')
    },
  )

  const batching = new BatchingProducer(producer, {
    lingerMs: 1,
    maxBatchBytes: 4 * 1024 * 1024,
    maxInFlight: 2,
    timeoutMs: config.INGRESS_PUBLISH_TIMEOUT_MS,
  })

  return {
    codec: () => codec,
    producer: batching,
    async readiness() {
      const checks: Record<string, string> = {}
      try {
        if (!kafkaConnected) throw new Error('not connected yet')
        await withDeadline(admin.fetchTopicMetadata({ topics: [topics.conversationComplete] }), 2_000)
        checks.kafka = 'ok'
      } catch (error) {
        checks.kafka = `unreachable: ${error instanceof Error ? error.message : String(error)}`
      }
      try {
        const response = await fetch(`${config.SCHEMA_REGISTRY_URL}/subjects`, {
          signal: AbortSignal.timeout(2_000),
        })
        checks.registry = response.ok ? 'ok' : `status ${response.status}`
      } catch (error) {
        checks.registry = `unreachable: ${error instanceof Error ? error.message : String(error)}`
      }
      checks.schema = codec ? `registered (id ${codec.schemaId})` : 'not registered yet'
      return { ready: checks.kafka === 'ok' && checks.registry === 'ok' && codec !== undefined, checks }
    },
    async close() {
      stopped = true
      await batching.drain()
      await Promise.allSettled([kafkaSetup, registrySetup])
      await producer.disconnect()
      await admin.disconnect()
    },
  }
}
