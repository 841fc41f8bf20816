import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventCodec } from '../../core/event/event-codec.ts'
import type { BatchProducer } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { createMetricsRegistry, type Registry } from '../../core/runtime/metrics.ts'
import type { Config } from '../../core/settings/env.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { type RunningWorker, startWorker } from '../../services/worker/worker.ts'
import { tempDataDir } from '../support/embedded-clickhouse.ts'
import { createTestTopic, testKafka } from '../support/kafka-test-helpers.ts'
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
import { testLogger, workerConfig } from '../support/worker-settings.ts'

// Scaling out and in under load: two workers in one consumer group (in one process, sharing the
// embedded ClickHouse data directory, as two worker processes would share a ClickHouse server).
// While 10,000 conversations flow in, a second worker joins (partitions move to it) and then the
// first leaves (all partitions move again). Every table must hold exactly what was sent, no
// conversation stored twice, and the domain counters of both workers together count each once.
const total = 10_000

describe('two workers in one consumer group, one joining and one leaving mid-stream', () => {
  const data = tempDataDir('worker-rebalance')
  let kafka: KafkaSettings
  let producer: BatchProducer
  let codec: EventCodec
  let topic: string
  let config: Config
  const registries: Registry[] = [createMetricsRegistry('worker'), createMetricsRegistry('worker')]
  const workers: RunningWorker[] = []
  const stopped = new Set<RunningWorker>()
  const sent: Sent[] = []

  beforeAll(async () => {
    kafka = testKafka()
    topic = await createTestTopic(kafka, 'worker-rebalance', 6)
    codec = await testCodec()
    producer = await connectedProducer(kafka)
    config = workerConfig(topic, data.dir, {
      WORKER_GROUP_ID: `va-test-worker-rebalance-${topic}`,
      WORKER_SESSION_TIMEOUT_MS: '6000',
    })
  })

  afterAll(async () => {
    for (const worker of workers) if (!stopped.has(worker)) await worker.stop()
    await producer?.disconnect()
    data.remove()
  })

  const start = async (registry: Registry) => {
    const worker = await startWorker(config, testLogger(), {
      registry,
      backoff: { baseMs: 100, maxMs: 1_000 },
    })
    workers.push(worker)
    return worker
  }
  const stop = async (worker: RunningWorker) => {
    stopped.add(worker)
    await worker.stop()
  }
  const rowsStoredBy = (registry: Registry) => () => registrySum([registry], 'worker_rows_inserted_total')

  it('stores every conversation exactly once and counts each once', async () => {
    const events = generateConversations({ count: total, seed: 1010, historyItems: 6, ...liveSpan() })
    // Conversations arrive paced, as webhooks do, so each change of the group meets a live stream.
    const produce = async (from: number, to: number) => {
      for (let at = from; at < to; at += 50) {
        sent.push(...(await produceEvents(producer, codec, topic, events.slice(at, Math.min(at + 50, to)))))
        await sleep(20)
      }
    }

    const first = await start(registries[0]!)
    const firstPhase = produce(0, 3_000)
    await waitFor(rowsStoredBy(registries[0]!), (n) => n > 0, 120_000, 'the first worker storing')

    // The second worker joins while the stream flows: the group rebalances under the first
    // worker's batches in flight.
    const secondPhase = firstPhase.then(() => produce(3_000, 6_000))
    const second = await start(registries[1]!)
    await waitFor(rowsStoredBy(registries[1]!), (n) => n > 0, 120_000, 'the second worker storing')
    await secondPhase

    // The first worker leaves while the last conversations flow: all partitions move to the second.
    const lastPhase = produce(6_000, total)
    expect(await committedTotal(kafka, config.WORKER_GROUP_ID, topic)).toBeLessThan(total)
    await stop(first)
    await lastPhase
    expect(sent).toHaveLength(total)

    // The workers' state rides along, so a stall says where it stopped.
    await waitFor(
      async () => ({
        committed: await committedTotal(kafka, config.WORKER_GROUP_ID, topic),
        inFlight: await Promise.all(registries.map((r) => registrySum([r], 'worker_batches_in_flight'))),
        consumed: await Promise.all(
          registries.map((r) => registrySum([r], 'worker_messages_consumed_total')),
        ),
        health: await fetch(`${second.metricsUrl}/healthz`).then((response) => response.json()),
      }),
      (progress) => progress.committed === total,
      300_000,
      'all committed',
    )
    await stop(second)

    await expectStoredExactlyOnce(data.dir, sent, expect)
    // Both workers stored a share; together they counted each conversation once.
    for (const registry of registries) expect(await rowsStoredBy(registry)()).toBeGreaterThan(0)
    const counted = await domainTotals(registries)
    expect(counted.voice_conversations_total).toBe(total)
    expect(counted).toEqual(await expectedDomainTotals(sent))
  }, 600_000)
})
