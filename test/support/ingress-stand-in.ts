import { MultipleErrors, NetworkError, ProtocolError } from '@platformatic/kafka'
import avro from 'avsc'
import { compileAvroWriter } from '../../core/event/avro-event-writer.ts'
import { type EventCodec, wireEncoder, wireHeaderBytes } from '../../core/event/event-codec.ts'
import { type AvroRecord, fromAvroRecord } from '../../core/event/event-record.ts'
import { eventAvroSchema } from '../../core/event/event-schema.ts'
import { type OtlpSpans, otlpSpansAvroSchema } from '../../core/otlp/otlp-spans.ts'
import { type OtlpSpansCodec, otlpSpansWriter } from '../../core/otlp/otlp-spans-codec.ts'
import type { PiiRedaction } from '../../core/privacy/pii/pii-settings.ts'
import { createLogger } from '../../core/runtime/logger.ts'
import { createMetricsRegistry } from '../../core/runtime/metrics.ts'
import { parseWebhookSecrets } from '../../core/secrets/webhook-secrets.ts'
import type { OutgoingMessage } from '../../services/ingress/batching-producer.ts'
import { buildIngressApp, webhookRoute } from '../../services/ingress/ingress-app.ts'
import {
  BatchRefusedBySizeError,
  MessageTooLargeError,
  PublishTimeoutError,
  QueueFullError,
} from '../../services/ingress/ingress-errors.ts'
import { createIngressMetrics } from '../../services/ingress/ingress-metrics.ts'
import { logSink } from './log-sink.ts'

// The ingress app with nothing real behind it, for Fastify's inject(): a stand-in publisher in
// place of Kafka (it records what it was asked to publish, or fails as the real one fails), a
// codec that needs no registry, and every log line kept.
export const testSecrets = { prod: 'prod-secret-4f9a8b7c6d5e', staging: 'staging-secret-1a2b3c4d5e6f' }

/** How the real publisher (BatchingProducer over @platformatic/kafka) fails, by cause. */
export const publishFailures = {
  /** Kafka is down: the client's aggregated connection errors. */
  outage: () =>
    new MultipleErrors('Producing messages failed.', [
      new NetworkError('Connection to 127.0.0.1:9092 failed.', {
        cause: new Error('connect ECONNREFUSED 127.0.0.1:9092'),
      }),
    ]),
  /** The message waited in the queue longer than INGRESS_PUBLISH_TIMEOUT_MS. */
  timeout: () => new PublishTimeoutError('Kafka did not take the message within 4000 ms'),
  /** The queue holds INGRESS_QUEUE_LIMIT_BYTES already. */
  queueFull: () => new QueueFullError('the publish queue is full (2097152 bytes waiting for Kafka)'),
  /** Larger than the topic's limit as read from Kafka: refused before Kafka sees it. */
  tooLarge: () => new MessageTooLargeError('the message takes 2000000 bytes; topic t takes at most 1048588'),
  /** Kafka itself refused the message as too large (its limit changed under the producer). */
  kafkaTooLarge: () =>
    new MultipleErrors('Producing messages failed.', [new ProtocolError('MESSAGE_TOO_LARGE')]),
  /** Kafka refused a batch of several messages by size. */
  batchTooLarge: () => new BatchRefusedBySizeError('Kafka refused the batch by size; retry'),
} satisfies Record<string, () => Error>

export interface Published {
  topic: string
  message: OutgoingMessage
}

/** Stands in for the publisher ingress-app.ts depends on: records each call, succeeds unless told otherwise. */
export class StandInPublisher {
  readonly published: Published[] = []
  private failure: (() => Error) | undefined
  private held: Array<() => void> | undefined

  /** Every later publish fails with this (undefined: succeeds again). */
  failWith(failure: (() => Error) | undefined): void {
    this.failure = failure
  }

  /** Later publishes wait until release(): a Kafka that has not acknowledged yet. */
  hold(): void {
    this.held = []
  }

  /** How many publishes are waiting for release(). */
  get waiting(): number {
    return this.held?.length ?? 0
  }

  release(): void {
    const held = this.held ?? []
    this.held = undefined
    for (const resume of held) resume()
  }

  readonly publish = async (topic: string, message: OutgoingMessage): Promise<void> => {
    this.published.push({ topic, message })
    const held = this.held
    if (held) await new Promise<void>((resume) => held.push(resume))
    if (this.failure) throw this.failure()
  }
}

/** The schema id the stand-in codec writes into every event (no registry assigned it). */
export const standInSchemaId = 4242
const eventType = avro.Type.forSchema(eventAvroSchema as avro.Schema)
const encodeEvent = wireEncoder(standInSchemaId, compileAvroWriter(eventAvroSchema))

/** A codec as the registry would give, bound to standInSchemaId. The app only reads its schema id. */
export const standInCodec: EventCodec = {
  schemaId: standInSchemaId,
  encode: async (record) => encodeEvent(record),
  decode: async (value) => eventType.fromBuffer(value.subarray(wireHeaderBytes)) as AvroRecord,
}

const otlpSpansType = avro.Type.forSchema(otlpSpansAvroSchema)
/** The span codec as the registry would give, bound to standInOtlpSchemaId. */
export const standInOtlpSchemaId = 4343
export const standInOtlpCodec: OtlpSpansCodec = {
  schemaId: standInOtlpSchemaId,
  encode: wireEncoder<OtlpSpans>(standInOtlpSchemaId, otlpSpansWriter),
  decode: async (value) => otlpSpansType.fromBuffer(value.subarray(wireHeaderBytes)) as OtlpSpans,
}

/** A published event message as the platform's payload and our ingestion metadata. */
export async function decodePublished(message: OutgoingMessage) {
  return fromAvroRecord(await standInCodec.decode(message.value))
}

export interface StandInOptions {
  bodyLimitBytes?: number
  /** undefined: the schema is not registered yet. */
  codec?: EventCodec | undefined
  /** undefined: the span schema is not registered yet. */
  otlpCodec?: OtlpSpansCodec | undefined
  readiness?: () => Promise<{ ready: boolean; checks: Record<string, string> }>
  piiRedaction?: (source: string) => PiiRedaction | undefined
  logLevel?: string
}

export const standInBodyLimitBytes = 1024 * 1024

/** buildIngressApp as main.ts calls it, with the stand-ins in place of Kafka and the registry. */
export function buildStandInIngress(options: StandInOptions = {}) {
  const { sink, logs } = logSink()
  const publisher = new StandInPublisher()
  const metricsRegistry = createMetricsRegistry('ingress')
  const codec = 'codec' in options ? options.codec : standInCodec
  const otlpCodec = 'otlpCodec' in options ? options.otlpCodec : standInOtlpCodec
  const app = buildIngressApp({
    secrets: parseWebhookSecrets(`prod=${testSecrets.prod},staging=${testSecrets.staging}`),
    bodyLimitBytes: options.bodyLimitBytes ?? standInBodyLimitBytes,
    requestTimeoutMs: 30_000,
    connectionTimeoutMs: 10_000,
    logger: createLogger('ingress', options.logLevel ?? 'debug', sink),
    metrics: createIngressMetrics(metricsRegistry),
    metricsRegistry,
    codec: () => codec,
    otlpCodec: () => otlpCodec,
    publish: publisher.publish,
    readiness:
      options.readiness ??
      (async () => ({ ready: true, checks: { kafka: 'ok', registry: 'ok', schema: 'ok' } })),
    ...(options.piiRedaction ? { piiRedaction: options.piiRedaction } : {}),
  })

  interface Post {
    /** Sent as ?token=; null: none (see authorization). */
    token?: string | null
    /** null: no content-type header. */
    contentType?: string | null
    authorization?: string
    headers?: Record<string, string>
  }
  /** A webhook as the platform posts it: JSON, the prod token in the query, unless told otherwise. */
  const post = (body: unknown, request: Post = {}) => {
    const headers: Record<string, string> = { ...request.headers }
    const contentType = request.contentType === undefined ? 'application/json' : request.contentType
    if (contentType !== null) headers['content-type'] = contentType
    if (request.authorization !== undefined) headers.authorization = request.authorization
    const token = request.token === undefined ? testSecrets.prod : request.token
    return app.inject({
      method: 'POST',
      url: webhookRoute,
      ...(token === null ? {} : { query: { token } }),
      headers,
      ...(body === undefined
        ? {}
        : { payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
    })
  }
  /** The text of /metrics. */
  const metrics = async () => (await app.inject({ method: 'GET', url: '/metrics' })).body
  return { app, publisher, logs, post, metrics }
}

export type StandInIngress = ReturnType<typeof buildStandInIngress>
