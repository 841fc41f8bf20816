import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import type { EventCodec } from '../../core/event/event-codec.ts'
import type { BatchProducer } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import type { Logger } from '../../core/runtime/logger.ts'
import type { Config } from '../../core/settings/env.ts'
import { type RunningWorker, startWorker, type WorkerOptions } from '../../services/worker/worker.ts'
import { embeddedClickHouse, tempDataDir } from './embedded-clickhouse.ts'
import { createTestTopic, testKafka } from './kafka-test-helpers.ts'
import { connectedProducer, testCodec } from './produce-events.ts'
import { testLogger, workerConfig } from './worker-settings.ts'

// A worker integration test's setup and teardown in one: a topic, a migrated embedded ClickHouse,
// a producer and the registry codec, and the workers it starts, all stopped and removed after.

/** What a worker integration test sets up before it starts a worker, and takes down after. */
export interface WorkerFixture {
  kafka: KafkaSettings
  /** A throwaway topic of its own (its DLQ: `${topic}.dlq`). */
  topic: string
  /** The consumer group of the workers it starts, unless a test names another. */
  groupId: string
  codec: EventCodec
  producer: BatchProducer
  /** The test's embedded ClickHouse, in a temp data directory; workers share it. */
  clickhouse: ClickHouseClient
  dataDir: string
  /** Worker configuration for this topic, data directory and group; `extra` overrides. */
  config(extra?: Record<string, string>): Config
  /** Starts a worker on the fixture's ClickHouse (stopped by `stop()` unless stopped before). */
  /** A worker on the fixture's topic; its log lines go to `logger` (default: the test logger). */
  startWorker(
    extra?: Record<string, string>,
    options?: WorkerOptions,
    logger?: Logger,
  ): Promise<RunningWorker>
  /** Stops every worker it started, the producer and ClickHouse; removes the data directory. */
  stop(): Promise<void>
}

/**
 * The setup every worker integration test repeats: a topic of `partitions` partitions named
 * after `name`, the group `va-test-${name}-${topic}`, a producer, the codec and an embedded
 * ClickHouse in a temp data directory. Call it in beforeAll and `stop()` in afterAll.
 */
export async function startWorkerFixture(name: string, partitions: number): Promise<WorkerFixture> {
  const data = tempDataDir(name)
  const workers: RunningWorker[] = []
  let producer: BatchProducer | undefined
  let clickhouse: ClickHouseClient | undefined
  const stop = async () => {
    for (const worker of workers) await worker.stop()
    await producer?.disconnect()
    await clickhouse?.close()
    data.remove()
  }
  try {
    const kafka = testKafka()
    const topic = await createTestTopic(kafka, name, partitions)
    const groupId = `va-test-${name}-${topic}`
    const codec = await testCodec()
    producer = await connectedProducer(kafka)
    clickhouse = embeddedClickHouse(data.dir)
    const config = (extra: Record<string, string> = {}) =>
      workerConfig(topic, data.dir, { WORKER_GROUP_ID: groupId, ...extra })
    const fixture: WorkerFixture = {
      kafka,
      topic,
      groupId,
      codec,
      producer,
      clickhouse,
      dataDir: data.dir,
      config,
      async startWorker(extra = {}, options = {}, logger = testLogger()) {
        const worker = await startWorker(config(extra), logger, {
          clickhouse: fixture.clickhouse,
          ...options,
        })
        // Stopped once, whether by the test or by the fixture's stop().
        let stopped: Promise<void> | undefined
        const once: RunningWorker = { ...worker, stop: () => (stopped ??= worker.stop()) }
        workers.push(once)
        return once
      },
      stop,
    }
    return fixture
  } catch (error) {
    await stop()
    throw error
  }
}
