import {
  type ClickHouseClient,
  createClickHouse,
  describeClickHouse,
} from '../../core/clickhouse/clickhouse.ts'
import { MigrationError } from '../../core/clickhouse/clickhouse-errors.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { applyRetention } from '../../core/clickhouse/clickhouse-retention.ts'
import { cachedSchemaDecoder } from '../../core/event/cached-schema-decoder.ts'
import { createSchemaRegistry } from '../../core/event/event-codec.ts'
import { createKafkaAdmin, topicMessageLimits } from '../../core/kafka/kafka-admin.ts'
import { createPartitionConsumer } from '../../core/kafka/kafka-consumer.ts'
import { createBatchProducer } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { prepareKafkaTopics } from '../../core/kafka/prepare-topics.ts'
import { conversationCompleteSubject, topicMessageLimit } from '../../core/kafka/topics.ts'
import { type BackoffSettings, backoffDelay, defaultBackoff } from '../../core/runtime/backoff.ts'
import type { Logger } from '../../core/runtime/logger.ts'
import { createMetricsRegistry, type Registry } from '../../core/runtime/metrics.ts'
import { type MetricsServer, startMetricsServer } from '../../core/runtime/metrics-server.ts'
import { retryUntil } from '../../core/runtime/retry-until.ts'
import type { Config } from '../../core/settings/env.ts'
import { createBatchProcessor } from './consume/batch-processor.ts'
import { ProgressWatch } from './observe/progress-watch.ts'
import { createWorkerMetrics } from './observe/worker-metrics.ts'
import { liveness, readiness, type WorkerCondition, type WorkerPhase } from './observe/worker-probes.ts'
import { BatchWriter } from './write/batch-writer.ts'
import { createConversationWrite } from './write/conversation-write.ts'
import { startHourRollupKeeper } from './write/hour-rollup-keeper-start.ts'

// The worker's wiring: ClickHouse (migrated at start), the schema registry, a Kafka consumer
// group on the event topic (per-partition batches, offsets committed by hand after ClickHouse
// acknowledged; @platformatic/kafka, kafka-consumer.ts), a producer for the DLQ, metrics and
// health. Scale out by starting more workers with the same WORKER_GROUP_ID: Kafka spreads the
// partitions over them.
export interface WorkerOptions {
  /** An existing client (tests, `npm run dev`); the worker does not close it. */
  clickhouse?: ClickHouseClient
  registry?: Registry
  /** false: no /metrics server (the replay command). */
  metricsServer?: boolean
  backoff?: BackoffSettings
  /** Grace for the batch in flight at stop before its retries are abandoned. */
  stopGraceMs?: number
}

export interface RunningWorker {
  metricsUrl: string | undefined
  clickhouse: ClickHouseClient
  /** `forget` erased these conversations in this process: a re-delivery of one is dropped, not stored. */
  forgotten(sessionIds: readonly string[]): void
  stop(): Promise<void>
}

export async function prepareClickHouse(
  clickhouse: ClickHouseClient,
  config: Config,
  logger: Logger,
  signal: AbortSignal,
  backoff: BackoffSettings = defaultBackoff,
): Promise<void> {
  await retryUntil(
    async () => {
      const report = await runMigrations(
        clickhouse,
        config.CLICKHOUSE_DATABASE,
        undefined,
        config.CLICKHOUSE_CLUSTER,
      )
      for (const migration of report.applied)
        logger.info({ version: migration.version, name: migration.name }, 'ClickHouse migration applied')
      const retention = await applyRetention(
        clickhouse,
        config.CLICKHOUSE_DATABASE,
        {
          conversationDays: config.CLICKHOUSE_TTL_DAYS,
          rollupDays: config.CLICKHOUSE_ROLLUP_TTL_DAYS,
        },
        config.CLICKHOUSE_CLUSTER,
      )
      for (const statement of retention) logger.info({ statement }, 'ClickHouse retention changed')
    },
    {
      signal,
      backoff,
      giveUp: (error) => error instanceof MigrationError,
      onFailure: (error, attempt, delayMs) =>
        logger.warn(
          { attempt, retryInMs: delayMs, error: (error as Error).message },
          'ClickHouse not ready: retrying',
        ),
    },
  )
}

export async function startWorker(
  config: Config,
  logger: Logger,
  options: WorkerOptions = {},
): Promise<RunningWorker> {
  const backoff = options.backoff ?? defaultBackoff
  const controller = new AbortController()
  const clickhouse = options.clickhouse ?? createClickHouse(config)
  logger.info({ clickhouse: describeClickHouse(config) }, 'worker starting')
  const registry = options.registry ?? createMetricsRegistry('worker')
  const progress = new ProgressWatch()
  const topic = config.WORKER_TOPIC
  let state: WorkerPhase = 'starting'
  let waitingFor: string | undefined = 'clickhouse'
  const condition = (): WorkerCondition => ({
    phase: state,
    waitingFor,
    stall: progress.status(config.WORKER_STALL_SECONDS),
    topic,
    groupId: config.WORKER_GROUP_ID,
  })
  // Served from the first second: alive while it waits for ClickHouse and Kafka, not yet ready.
  const server: MetricsServer | undefined =
    options.metricsServer === false
      ? undefined
      : await startMetricsServer(
          registry,
          { live: () => liveness(condition()), ready: () => readiness(condition()) },
          config.WORKER_METRICS_PORT,
        )
  try {
    return await startConsuming()
  } catch (error) {
    await server?.close()
    throw error
  }

  async function startConsuming(): Promise<RunningWorker> {
    await prepareClickHouse(clickhouse, config, logger, controller.signal, backoff)
    waitingFor = 'kafka'
    // A second session (embedded: same data directory, same process) writes the item rows in parallel.
    const itemsClient = createClickHouse(config)

    const metrics = createWorkerMetrics(registry, () => progress.status(config.WORKER_STALL_SECONDS))
    const hourRollup = startHourRollupKeeper(clickhouse, config, metrics, logger)
    const conversationWrite = createConversationWrite({
      clickhouse,
      itemsClient,
      config,
      registry,
      logger,
      hourRollup,
    })
    const schemaRegistry = createSchemaRegistry(config.SCHEMA_REGISTRY_URL)
    const decoder = {
      decode: cachedSchemaDecoder(schemaRegistry),
      registryHoldsSubject: async () => {
        try {
          return typeof (await schemaRegistry.getLatestSchemaId(conversationCompleteSubject)) === 'number'
        } catch (error) {
          if ((error as { status?: number }).status === 404) return false
          throw error
        }
      },
    }
    const kafkaSettings: KafkaSettings = {
      brokers: config.KAFKA_BROKERS,
      clientId: `${config.KAFKA_CLIENT_ID}-worker`,
    }
    await prepareKafkaTopics(
      kafkaSettings,
      [topic, config.WORKER_DLQ_TOPIC],
      topicMessageLimit(config.INGRESS_BODY_LIMIT_BYTES),
      config.KAFKA_RETENTION_HOURS,
      logger,
      controller.signal,
      backoff,
    )
    // Connects on its first dead letter (a send that fails then is retried like any other).
    const producer = createBatchProducer(kafkaSettings)
    const consumer = createPartitionConsumer({
      settings: kafkaSettings,
      groupId: config.WORKER_GROUP_ID,
      topic,
      sessionTimeoutMs: config.WORKER_SESSION_TIMEOUT_MS,
      heartbeatIntervalMs: Math.min(3_000, config.WORKER_SESSION_TIMEOUT_MS / 3),
      maxBytesPerPartition: config.WORKER_MAX_BYTES_PER_PARTITION,
      maxBytes: config.WORKER_MAX_BYTES_PER_PARTITION * 8,
      minBytes: 1024 * 1024,
      maxWaitMs: 250,
      retryDelayMs: (attempt) => backoffDelay(attempt, backoff),
      logger,
    })

    // Bytes of batches handed over and not yet committed: what bounds the rows the worker holds. Eight
    // partitions' full fetches, as many as the count of 8 batches held while a backlog drains.
    const maxPendingBytes = 8 * config.WORKER_MAX_BYTES_PER_PARTITION
    const writer = new BatchWriter({
      insert: conversationWrite.write,
      metrics,
      logger,
      signal: controller.signal,
      backoff,
      maxBatchAgeMs: config.WORKER_MAX_BATCH_AGE_MS,
      // Behind a backlog, batches wait for the ones after them (up to the 500 ms bound):
      // fewer, larger writes, 17–30% less CPU per conversation, mostly merges (bench/results/worker.md).
      maxBacklogBatchAgeMs: Math.max(config.WORKER_MAX_BATCH_AGE_MS, 500),
      maxRows: 20_000,
      progress,
    })
    // Fetching pauses while ClickHouse is away; the batches in hand keep retrying.
    progress.onDependencyChange((dependency, failing) => {
      if (dependency !== 'clickhouse') return
      if (failing) consumer.pause()
      else consumer.resume()
    })
    const processor = createBatchProcessor({
      decoder,
      progress,
      writer,
      producer,
      deadLetterTopic: config.WORKER_DLQ_TOPIC,
      deadLetterMaxBytes: async () => {
        const dlqAdmin = createKafkaAdmin(kafkaSettings)
        try {
          return (await topicMessageLimits(dlqAdmin, [config.WORKER_DLQ_TOPIC])).get(config.WORKER_DLQ_TOPIC)
        } finally {
          await dlqAdmin.close()
        }
      },
      metrics,
      logger,
      signal: controller.signal,
      backoff,
      turnTaking: { deadAirMs: config.DEAD_AIR_SECONDS * 1000 },
      commit: (committedTopic, partition, offset) => consumer.commit(committedTopic, partition, offset),
      seek: (seekTopic, partition, offset) => consumer.seek(seekTopic, partition, offset),
      owns: (batch) => consumer.owns(batch),
      committed: conversationWrite.committed,
      assigned: conversationWrite.assigned,
      readingFrom: conversationWrite.readingFrom,
      maxPendingBytes,
    })
    consumer.onAssigned((change) => processor.assigned(change))
    await consumer.run(processor.eachBatch)
    state = 'running'
    waitingFor = undefined

    logger.info({ topic, groupId: config.WORKER_GROUP_ID, metrics: server?.url }, 'worker consuming')

    return {
      metricsUrl: server?.url,
      clickhouse,
      forgotten: conversationWrite.forgotten,
      async stop() {
        // The batch in flight finishes and commits; one stuck retrying is abandoned after the grace.
        const grace = setTimeout(() => controller.abort(), options.stopGraceMs ?? 10_000)
        try {
          consumer.pause()
          await processor.drain()
          await consumer.disconnect()
          await processor.drain() // a batch that was being decoded: its commit is refused, it is read again
          logger.debug('consumer disconnected')
        } finally {
          clearTimeout(grace)
          controller.abort()
          state = 'stopped'
        }
        await hourRollup.stop()
        await producer.disconnect()
        logger.debug('producer disconnected')
        await server?.close()
        logger.debug('metrics server closed')
        await itemsClient.close()
        if (!options.clickhouse) await clickhouse.close()
        logger.info('worker stopped')
      },
    }
  }
}
