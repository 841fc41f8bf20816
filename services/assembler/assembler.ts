import { cachedSchemaDecoder } from '../../core/event/cached-schema-decoder.ts'
import { createEventCodec, createSchemaRegistry } from '../../core/event/event-codec.ts'
import { createKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import { createPartitionConsumer } from '../../core/kafka/kafka-consumer.ts'
import { createBatchProducer, type TopicBatch } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import type { PartitionBatch } from '../../core/kafka/partition-batches.ts'
import { prepareKafkaTopics } from '../../core/kafka/prepare-topics.ts'
import { topicMessageLimit } from '../../core/kafka/topics.ts'
import type { OtlpSpan, OtlpSpans } from '../../core/otlp/otlp-spans.ts'
import { createOtlpSpansCodec } from '../../core/otlp/otlp-spans-codec.ts'
import { type BackoffSettings, backoffDelay, defaultBackoff } from '../../core/runtime/backoff.ts'
import type { Logger } from '../../core/runtime/logger.ts'
import { createMetricsRegistry, type Registry } from '../../core/runtime/metrics.ts'
import { type MetricsServer, startMetricsServer } from '../../core/runtime/metrics-server.ts'
import type { Config } from '../../core/settings/env.ts'
import { createAssemblerMetrics } from './assembler-metrics.ts'
import { assemblySettings } from './assembler-settings.ts'
import { type Emission, TraceAssembly } from './assembly/trace-assembly.ts'
import { assembleTrace } from './mapping/assemble-trace.ts'
import { parseSourceMappings } from './mapping/mapping-choice.ts'
import { mappings } from './mapping/mappings.ts'
import { readEmittedTraces } from './restore-emitted.ts'

// The assembler's wiring (docs/otlp.md, "The assembler"): a consumer group on the spans topic,
// whose messages (Avro OtlpSpans through the registry) go into the pure TraceAssembly; a tick that
// emits what is due (the mapping's records, encoded with the event codec, produced to the event
// topic keyed by session_id), dead-letters what cannot be assembled, and only then commits the
// offsets the assembly releases. Nothing is committed past a trace not yet emitted: a restart
// reads it again, and the worker replaces a repeated delivery (exactly-once by session_id).
// A partition read afresh (a start, a rebalance) first gets back the traces emitted before its
// committed offset (restore-emitted.ts): its batches wait until they are restored.
export interface AssemblerOptions {
  registry?: Registry
  metricsServer?: boolean
  backoff?: BackoffSettings
  /** How often due traces are emitted and offsets committed. */
  tickMs?: number
  /** The clock (tests). */
  now?: () => number
}

export interface RunningAssembler {
  metricsUrl: string | undefined
  stop(): Promise<void>
}

// As the consumer's assignment names partitions.
const partitionKey = (topic: string, partition: number) => `${topic}/${partition}`
const parsePartitionKey = (key: string) => {
  const at = key.lastIndexOf('/')
  return { topic: key.slice(0, at), partition: Number(key.slice(at + 1)) }
}
const isRootSpan = (span: OtlpSpan) => mappings.some((mapping) => mapping.isRoot(span.name, span.scope_name))

export async function startAssembler(
  config: Config,
  logger: Logger,
  options: AssemblerOptions = {},
): Promise<RunningAssembler> {
  const backoff = options.backoff ?? defaultBackoff
  const now = options.now ?? Date.now
  const controller = new AbortController()
  const registry = options.registry ?? createMetricsRegistry('assembler')
  const metrics = createAssemblerMetrics(registry)
  const sourceMappings = parseSourceMappings(config.ASSEMBLER_SOURCE_MAPPINGS)
  let running = false
  const server: MetricsServer | undefined =
    options.metricsServer === false
      ? undefined
      : await startMetricsServer(
          registry,
          { live: () => ({ healthy: true }), ready: () => ({ healthy: running }) },
          config.ASSEMBLER_METRICS_PORT,
        )
  const kafkaSettings: KafkaSettings = {
    brokers: config.KAFKA_BROKERS,
    clientId: `${config.KAFKA_CLIENT_ID}-assembler`,
  }
  const topic = config.ASSEMBLER_TOPIC
  try {
    await prepareKafkaTopics(
      kafkaSettings,
      [topic, config.ASSEMBLER_OUTPUT_TOPIC, config.ASSEMBLER_DLQ_TOPIC],
      topicMessageLimit(config.INGRESS_BODY_LIMIT_BYTES),
      config.KAFKA_RETENTION_HOURS,
      logger,
      controller.signal,
      backoff,
    )
  } catch (error) {
    await server?.close()
    throw error
  }
  const schemaRegistry = createSchemaRegistry(config.SCHEMA_REGISTRY_URL)
  const decode = cachedSchemaDecoder(schemaRegistry)
  let eventCodec: Awaited<ReturnType<typeof createEventCodec>> | undefined
  let spansEncoder: ((message: OtlpSpans) => Buffer) | undefined
  const producer = createBatchProducer(kafkaSettings)
  const assembly = new TraceAssembly(assemblySettings(config), isRootSpan)
  const consumer = createPartitionConsumer({
    settings: kafkaSettings,
    groupId: config.ASSEMBLER_GROUP_ID,
    topic,
    sessionTimeoutMs: config.WORKER_SESSION_TIMEOUT_MS,
    heartbeatIntervalMs: Math.min(3_000, config.WORKER_SESSION_TIMEOUT_MS / 3),
    maxBytesPerPartition: config.WORKER_MAX_BYTES_PER_PARTITION,
    maxBytes: config.WORKER_MAX_BYTES_PER_PARTITION * 8,
    minBytes: 1,
    maxWaitMs: 250,
    retryDelayMs: (attempt) => backoffDelay(attempt, backoff),
    logger,
  })
  const admin = createKafkaAdmin(kafkaSettings)
  /** Partitions read: a rejoin that does not keep one drops its traces (it is read again). */
  let owned = new Set<string>()
  /** Partitions read afresh whose emitted traces are being restored: their batches wait for it. */
  const restoring = new Map<string, Promise<void>>()
  /** Each partition's restore in progress; a restore whose partition was dropped since applies nothing. */
  const restoreToken = new Map<string, object>()

  const restore = async (keys: string[]): Promise<void> => {
    const tokens = new Map(keys.map((key) => [key, restoreToken.get(key)]))
    const current = () => keys.filter((key) => restoreToken.get(key) === tokens.get(key))
    for (let attempt = 1; !controller.signal.aborted && current().length > 0; attempt++) {
      try {
        const partitions = current().map((key) => parsePartitionKey(key).partition)
        const restored = await readEmittedTraces(
          {
            admin,
            kafka: kafkaSettings,
            topic,
            groupId: config.ASSEMBLER_GROUP_ID,
            decode: async (value) => (await decode(value)) as unknown as OtlpSpans,
            settings: assemblySettings(config),
            isRoot: isRootSpan,
            signal: controller.signal,
          },
          partitions,
        )
        for (const key of current()) {
          const traces = restored.get(parsePartitionKey(key).partition) ?? { whole: [], idsOnly: [] }
          assembly.restore(key, traces, now())
          metrics.tracesRestored.inc({ kind: 'whole' }, traces.whole.length)
          metrics.tracesRestored.inc({ kind: 'id' }, traces.idsOnly.length)
          logger.info(
            { partition: key, whole: traces.whole.length, ids: traces.idsOnly.length },
            'emitted traces restored',
          )
        }
        return
      } catch (error) {
        if (controller.signal.aborted) return
        const retryInMs = backoffDelay(attempt, backoff)
        logger.warn(
          { error: (error as Error).message, retryInMs },
          'restoring emitted traces failed: retrying',
        )
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, retryInMs)
          const wake = () => {
            clearTimeout(timer)
            resolve()
          }
          controller.signal.addEventListener('abort', wake, { once: true })
        })
      }
    }
  }

  consumer.onAssigned((change) => {
    const lost = new Set([...owned].filter((key) => !change.kept.has(key)))
    if (lost.size > 0) assembly.drop(lost)
    for (const key of lost) {
      restoreToken.delete(key)
      restoring.delete(key)
    }
    owned = new Set(change.assigned)
    const gained = [...change.assigned].filter(
      (key) => !change.kept.has(key) && parsePartitionKey(key).topic === topic,
    )
    if (gained.length === 0) return
    for (const key of gained) restoreToken.set(key, {})
    const restored = restore(gained)
    for (const key of gained) restoring.set(key, restored)
  })

  const deadLetter = async (
    messages: TopicBatch['messages'],
    reason: 'late' | 'unmapped' | 'undecodable',
  ): Promise<void> => {
    const withReason = messages.map((message) => ({
      ...message,
      headers: { ...message.headers, 'assembler-reason': reason },
    }))
    await producer.sendBatch([{ topic: config.ASSEMBLER_DLQ_TOPIC, messages: withReason }])
    metrics.deadLetters.inc({ reason }, messages.length)
  }

  /** Dead letters run beside the tick; each is retried until Kafka takes it (its offset stays held meanwhile). */
  const sendHeld = (
    partition: string,
    offset: bigint,
    value: Buffer,
    key: Buffer | null,
    reason: 'late' | 'undecodable',
  ) => {
    const attempt = async (tries: number): Promise<void> => {
      try {
        await deadLetter([{ key, value }], reason)
        assembly.release(partition, offset)
      } catch (error) {
        if (controller.signal.aborted) return
        logger.warn({ error: (error as Error).message, reason }, 'dead letter failed: retrying')
        await new Promise((resolve) => setTimeout(resolve, backoffDelay(tries, backoff)))
        return attempt(tries + 1)
      }
    }
    void attempt(1)
  }

  const eachBatch = async (batch: PartitionBatch): Promise<void> => {
    if (!consumer.owns(batch)) return
    const key = partitionKey(batch.topic, batch.partition)
    const restored = restoring.get(key)
    if (restored) {
      await restored
      if (!consumer.owns(batch) || controller.signal.aborted) return
    }
    for (const message of batch.messages) {
      const offset = BigInt(message.offset)
      let decoded: OtlpSpans
      try {
        if (!message.value) throw new Error('no value')
        decoded = (await decode(message.value)) as unknown as OtlpSpans
      } catch (error) {
        // Poison or a registry away: either way not assembled; the bytes are kept in the dead-letter topic.
        if (!assembly.hold(key, offset)) continue
        logger.warn({ offset: message.offset, error: (error as Error).message }, 'undecodable spans message')
        sendHeld(key, offset, message.value ?? Buffer.alloc(0), message.key, 'undecodable')
        continue
      }
      const outcome = assembly.add(key, offset, decoded, now())
      if (outcome.kind === 'added' && outcome.reopened)
        metrics.lateSpans.inc({ outcome: 'redelivered' }, decoded.spans.length)
      if (outcome.kind === 'late') {
        metrics.lateSpans.inc({ outcome: 'dead_lettered' }, decoded.spans.length)
        logger.warn(
          { traceId: outcome.traceId, spans: decoded.spans.length },
          'spans arrived after their trace was emitted and forgotten: dead-lettered',
        )
        sendHeld(key, offset, message.value!, message.key, 'late')
      }
    }
  }

  const emit = async (emission: Emission): Promise<void> => {
    const assembled = assembleTrace(emission.input, sourceMappings)
    if (!assembled || assembled.conversations.length === 0) {
      logger.warn(
        { traceId: emission.traceId, spans: emission.input.spans.length },
        'no mapping knows these spans: dead-lettered',
      )
      spansEncoder ??= (await createOtlpSpansCodec(schemaRegistry)).encode
      const value = spansEncoder({
        source: emission.input.source,
        received_at: now(),
        trace_id: emission.traceId,
        resource_attributes: [...emission.input.resourceAttributes],
        spans: [...emission.input.spans],
      })
      await deadLetter([{ key: emission.traceId, value }], 'unmapped')
      return
    }
    eventCodec ??= await createEventCodec(schemaRegistry)
    const messages: TopicBatch['messages'] = []
    for (const conversation of assembled.conversations)
      messages.push({
        key: conversation.sessionId,
        value: await eventCodec.encode({ ...conversation.record, received_at: emission.version }),
      })
    await producer.sendBatch([{ topic: config.ASSEMBLER_OUTPUT_TOPIC, messages }])
    metrics.conversationsEmitted.inc(
      { mapping: assembled.mapping.id, reason: emission.reason },
      messages.length,
    )
  }

  let ticking: Promise<void> = Promise.resolve()
  const tick = async (): Promise<void> => {
    for (const emission of assembly.due(now())) {
      try {
        await emit(emission)
        assembly.emitted(emission, now())
        if (emission.rootArrivedMs !== null && emission.reason === 'root')
          metrics.emitLatency.observe((now() - emission.rootArrivedMs) / 1000)
      } catch (error) {
        metrics.emitFailures.inc()
        logger.warn(
          { traceId: emission.traceId, error: (error as Error).message },
          'emission failed: retrying',
        )
        assembly.failed(emission, now(), backoffDelay(1, backoff))
      }
    }
    assembly.expire(now())
    for (const [key, offset] of assembly.commits()) {
      const { topic: committedTopic, partition } = parsePartitionKey(key)
      try {
        await consumer.commit(committedTopic, partition, offset.toString())
        assembly.committed(key, offset)
      } catch (error) {
        logger.warn(
          { partition, offset: offset.toString(), error: (error as Error).message },
          'commit failed',
        )
      }
    }
    const stats = assembly.stats()
    metrics.tracesOpen.set(stats.openTraces)
    metrics.tracesKept.set(stats.keptTraces)
    metrics.spansHeld.set(stats.spans)
    metrics.spanBytesHeld.set(stats.spanBytes)
  }
  const timer = setInterval(() => {
    ticking = ticking
      .then(tick)
      .catch((error) => logger.error({ error: (error as Error).message }, 'assembler tick failed'))
  }, options.tickMs ?? 100)

  await consumer.run(eachBatch)
  running = true
  logger.info({ topic, groupId: config.ASSEMBLER_GROUP_ID, metrics: server?.url }, 'assembler consuming')
  return {
    metricsUrl: server?.url,
    async stop() {
      running = false
      consumer.pause()
      clearInterval(timer)
      await ticking
      controller.abort()
      await consumer.disconnect()
      await producer.disconnect()
      await admin.close().catch(() => {})
      await server?.close()
      logger.info('assembler stopped')
    },
  }
}
