import { createEventCodec, createSchemaRegistry, type EventCodec } from '../../core/event/event-codec.ts'
import {
  createKafkaAdmin,
  ensureTopics,
  fetchTopicMetadata,
  topicMessageLimits,
} from '../../core/kafka/kafka-admin.ts'
import { isMessageTooLarge } from '../../core/kafka/kafka-errors.ts'
import { createBatchProducer } from '../../core/kafka/kafka-producer.ts'
import { retentionSpec } from '../../core/kafka/topic-creation.ts'
import { topicMessageLimit, topics } from '../../core/kafka/topics.ts'
import { createOtlpSpansCodec, type OtlpSpansCodec } from '../../core/otlp/otlp-spans-codec.ts'
import type { Logger } from '../../core/runtime/logger.ts'
import type { Config } from '../../core/settings/env.ts'
import { BatchingProducer } from './batching-producer.ts'
import { errorReason, readiness, requestWithCredentials, urlHost } from './readiness-checks.ts'

// Kafka and the schema registry for the ingress. It starts even when they are down (and then
// answers 503): topics, producer and schema registration are retried in the background until
// they succeed, and readiness says which one is missing. Topics are created to take every body
// INGRESS_BODY_LIMIT_BYTES lets in; the limits Kafka really applies are read back, so the
// producer refuses a message too large on its own instead of failing a batch of neighbours.
// Producer and admin are @platformatic/kafka (core/kafka), the product's one Kafka client.

export interface IngressConnections {
  codec: () => EventCodec | undefined
  otlpCodec: () => OtlpSpansCodec | undefined
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
      logger.warn({ err: errorReason(error) }, `${name} failed; retrying in ${delay} ms`)
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
  const kafkaSettings = {
    brokers: config.KAFKA_BROKERS,
    clientId: `${config.KAFKA_CLIENT_ID}-ingress`,
    // One request lasts at most as long as a message may wait in the queue: a caller whose
    // message is in flight gets Kafka's verdict within a few of these (retries below).
    requestTimeoutMs: config.INGRESS_PUBLISH_TIMEOUT_MS,
  }
  const admin = createKafkaAdmin(kafkaSettings)
  // Idempotent, acks=all, on @platformatic/kafka (measured: bench/results/kafka-client.md). Bounded:
  // four attempts of at most INGRESS_PUBLISH_TIMEOUT_MS each, then the callers get 503 and the
  // platform retries (the worker stores a conversation once by session_id).
  const producer = createBatchProducer(kafkaSettings)
  const registry = createSchemaRegistry(config.SCHEMA_REGISTRY_URL)
  let codec: EventCodec | undefined
  let otlpCodec: OtlpSpansCodec | undefined
  let kafkaConnected = false
  let stopped = false

  const batching = new BatchingProducer((topicMessages) => producer.sendBatch(topicMessages), {
    lingerMs: 1,
    maxBatchBytes: 4 * 1024 * 1024,
    maxInFlight: 2,
    timeoutMs: config.INGRESS_PUBLISH_TIMEOUT_MS,
    maxQueuedBytes: config.INGRESS_QUEUE_LIMIT_BYTES,
    defaultMessageLimit: topicMessageLimit(config.INGRESS_BODY_LIMIT_BYTES),
    isSizeRefusal: isMessageTooLarge,
  })

  const kafkaSetup = retryForever(
    'kafka setup (topics, producer)',
    logger,
    () => stopped,
    async () => {
      const names = Object.values(topics)
      await ensureTopics(
        admin,
        names.map((topic) => retentionSpec(topic, config.KAFKA_RETENTION_HOURS)),
        topicMessageLimit(config.INGRESS_BODY_LIMIT_BYTES),
      )
      for (const [topic, limit] of await topicMessageLimits(admin, names)) {
        batching.setMessageLimit(topic, limit)
        if (limit < topicMessageLimit(config.INGRESS_BODY_LIMIT_BYTES))
          logger.warn(
            { topic, maxMessageBytes: limit, bodyLimitBytes: config.INGRESS_BODY_LIMIT_BYTES },
            'topic takes smaller messages than the ingress accepts: larger events are answered 413',
          )
      }
      await producer.connect(names)
      kafkaConnected = true
    },
  )
  const registrySetup = retryForever(
    'schema registration',
    logger,
    () => stopped,
    async () => {
      if (!codec) {
        codec = await createEventCodec(registry)
        logger.info({ schemaId: codec.schemaId }, 'event schema registered')
      }
      otlpCodec = await createOtlpSpansCodec(registry)
      logger.info({ schemaId: otlpCodec.schemaId }, 'OTLP span schema registered')
    },
  )

  return {
    codec: () => codec,
    otlpCodec: () => otlpCodec,
    producer: batching,
    async readiness() {
      const registryHost = urlHost(config.SCHEMA_REGISTRY_URL)
      const [kafka, registry] = await Promise.all([
        (async () => {
          try {
            if (!kafkaConnected) return { ok: false as const, reason: 'not connected yet' }
            await withDeadline(fetchTopicMetadata(admin, topics.conversationComplete), 2_000)
            return { ok: true as const }
          } catch (error) {
            return { ok: false as const, reason: errorReason(error) }
          }
        })(),
        (async () => {
          try {
            const request = requestWithCredentials(config.SCHEMA_REGISTRY_URL)
            const response = await fetch(`${request.url.replace(/\/$/, '')}/subjects`, {
              headers: request.headers,
              signal: AbortSignal.timeout(2_000),
            })
            await response.body?.cancel()
            return response.ok
              ? { ok: true as const }
              : { ok: false as const, reason: `answered ${response.status}` }
          } catch (error) {
            return { ok: false as const, reason: `unreachable (${errorReason(error)})` }
          }
        })(),
      ])
      return readiness({
        kafka,
        registry,
        registryHost,
        schemaId: codec?.schemaId,
        spanSchemaId: otlpCodec?.schemaId,
      })
    },
    async close() {
      stopped = true
      await batching.drain()
      await Promise.allSettled([kafkaSetup, registrySetup])
      await producer.disconnect()
      await admin.close()
    },
  }
}
