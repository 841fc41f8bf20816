import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventCodec } from '../../core/event/event-codec.ts'
import { ensureTopics, withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import type { BatchProducer } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { createLogger } from '../../core/runtime/logger.ts'
import { createMetricsRegistry } from '../../core/runtime/metrics.ts'
import type { Config } from '../../core/settings/env.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { type RunningWorker, startWorker } from '../../services/worker/worker.ts'
import { tempDataDir } from '../support/embedded-clickhouse.ts'
import { testKafka } from '../support/kafka-test-helpers.ts'
import { logSink } from '../support/log-sink.ts'
import { createPrivateKafka, type PrivateKafka } from '../support/private-kafka.ts'
import {
  committedTotal,
  connectedProducer,
  produceEvents,
  type Sent,
  testCodec,
} from '../support/produce-events.ts'
import { expectStoredExactlyOnce } from '../support/stored-rows.ts'
import { waitFor } from '../support/wait-for.ts'
import {
  domainTotals,
  expectedDomainTotals,
  liveSpan,
  registrySum,
} from '../support/worker-metrics-reading.ts'
import { workerConfig } from '../support/worker-settings.ts'

// The Kafka broker stops under a running worker while batches are between receipt and commit,
// stays away for a while, and starts again (same data, same port: a broker restart). The worker
// must come back by itself, with nothing lost and nothing stored or counted twice. The broker is
// the test's own (the shared one is never stopped); schemas come from the shared registry, which
// holds them by subject.
const total = 3_000
const beforeRestart = 2_000

describe('Kafka broker restarted under the worker', () => {
  const data = tempDataDir('worker-kafka-restart')
  const registry = createMetricsRegistry('worker')
  let broker: PrivateKafka
  let kafka: KafkaSettings
  let producer: BatchProducer | undefined
  let codec: EventCodec
  let config: Config
  let worker: RunningWorker | undefined
  const topic = `test.worker-kafka-restart.${randomUUID()}`
  const sent: Sent[] = []

  beforeAll(async () => {
    broker = await createPrivateKafka()
    await broker.start()
    kafka = testKafka(broker.brokers)
    await withKafkaAdmin(kafka, (admin) => ensureTopics(admin, [{ topic, numPartitions: 4 }]))
    codec = await testCodec()
    producer = await connectedProducer(kafka)
    config = workerConfig(topic, data.dir, {
      KAFKA_BROKERS: broker.brokers,
      WORKER_GROUP_ID: `va-test-worker-kafka-restart-${topic}`,
      WORKER_SESSION_TIMEOUT_MS: '6000',
    })
  }, 300_000)

  afterAll(async () => {
    await worker?.stop()
    await producer?.disconnect()
    await broker?.remove()
    data.remove()
  }, 300_000)

  const progress = async () => ({
    committed: await committedTotal(kafka, config.WORKER_GROUP_ID, topic),
    inFlight: await registrySum([registry], 'worker_batches_in_flight'),
    health: await fetch(`${worker!.metricsUrl}/healthz`).then((response) => response.json()),
  })

  it('resumes by itself after the restart, losing and doubling nothing', async () => {
    const events = generateConversations({ count: total, seed: 4242, historyItems: 6, ...liveSpan() })
    sent.push(...(await produceEvents(producer!, codec, topic, events.slice(0, beforeRestart))))
    const { sink, logs } = logSink()
    worker = await startWorker(config, createLogger('worker-test', 'warn', sink), {
      registry,
      backoff: { baseMs: 100, maxMs: 1_000 },
    })

    // Pull the broker while a batch is between receipt and commit.
    await waitFor(
      () => registrySum([registry], 'worker_batches_in_flight'),
      (n) => n > 0,
      120_000,
      'a batch in flight',
    )
    const committedAtStop = await committedTotal(kafka, config.WORKER_GROUP_ID, topic)
    await producer!.disconnect()
    producer = undefined
    await broker.stop()
    // The broker stays away until the worker's Kafka client gave up three times (each time its own
    // retries ran out): the worker must keep going through that, not only through a blip.
    const kafkaFailures = /Kafka fetch failed|Kafka group join failed|lost its group membership/
    await waitFor(
      async () => logs.filter((line) => kafkaFailures.test(line)).length,
      (failures) => failures >= 3,
      120_000,
      "the worker's Kafka client failing three times",
    )
    await broker.start()

    // New conversations after the restart must flow too.
    producer = await connectedProducer(kafka)
    sent.push(...(await produceEvents(producer, codec, topic, events.slice(beforeRestart))))
    expect(sent).toHaveLength(total)
    const end = await waitFor(progress, (now) => now.committed === total, 300_000, 'all committed')
    expect(committedAtStop).toBeLessThan(beforeRestart)
    expect(end.health).toMatchObject({ healthy: true, consumer: 'running' })

    await worker.stop()
    worker = undefined
    await expectStoredExactlyOnce(data.dir, sent, expect)
    expect(await registrySum([registry], 'worker_dead_letter_total')).toBe(0)
    expect(await domainTotals([registry])).toEqual(await expectedDomainTotals(sent))
  }, 600_000)
})
