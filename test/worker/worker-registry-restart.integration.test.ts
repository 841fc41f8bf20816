import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventCodec } from '../../core/event/event-codec.ts'
import type { BatchProducer } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { createMetricsRegistry } from '../../core/runtime/metrics.ts'
import type { Config } from '../../core/settings/env.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { type RunningWorker, startWorker } from '../../services/worker/worker.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { tempDataDir } from '../support/embedded-clickhouse.ts'
import { createTestTopic, endOffsets, testKafka } from '../support/kafka-test-helpers.ts'
import {
  committedTotal,
  connectedProducer,
  produceEvents,
  type Sent,
  testCodec,
} from '../support/produce-events.ts'
import { expectStoredExactlyOnce } from '../support/stored-rows.ts'
import { createTcpFaultProxy, type ProxyFault, type TcpFaultProxy } from '../support/tcp-fault-proxy.ts'
import { waitFor } from '../support/wait-for.ts'
import {
  domainTotals,
  expectedDomainTotals,
  liveSpan,
  registrySum,
} from '../support/worker-metrics-reading.ts'
import { testLogger, workerConfig } from '../support/worker-settings.ts'

// The schema registry goes away under a running worker before it has fetched the schema of the
// messages arriving (a fresh worker on a fresh topic: its schema cache is empty): first hanging
// (connections accepted, never answered), then refusing connections, then accepting and dropping
// them, then answering 503 and 404 from a gateway in front of it (as an ingress does while no
// backend is up), and comes back. The worker reaches the real registry through a switchable TCP
// pass-through (a fault injector). Registry trouble is not poison: nothing may be dead-lettered
// or committed while it lasts, and once the registry answers the worker resumes by itself and
// stores everything exactly once.
const total = 300

describe('schema registry restarted under the worker', () => {
  const data = tempDataDir('worker-registry-restart')
  const registry = createMetricsRegistry('worker')
  let proxy: TcpFaultProxy
  let kafka: KafkaSettings
  let producer: BatchProducer
  let codec: EventCodec
  let topic: string
  let config: Config
  let worker: RunningWorker | undefined
  const sent: Sent[] = []

  beforeAll(async () => {
    const upstream = new URL(schemaRegistryUrl())
    proxy = await createTcpFaultProxy({ host: upstream.hostname, port: Number(upstream.port) })
    kafka = testKafka()
    topic = await createTestTopic(kafka, 'worker-registry-restart', 2)
    codec = await testCodec()
    producer = await connectedProducer(kafka)
    config = workerConfig(topic, data.dir, {
      SCHEMA_REGISTRY_URL: `http://127.0.0.1:${proxy.port}${upstream.pathname}`,
      WORKER_GROUP_ID: `va-test-worker-registry-restart-${topic}`,
    })
    worker = await startWorker(config, testLogger(), { registry, backoff: { baseMs: 100, maxMs: 1_000 } })
  })

  afterAll(async () => {
    await worker?.stop()
    await producer?.disconnect()
    await proxy?.close()
    data.remove()
  })

  const registryRetries = () =>
    registrySum([registry], 'worker_retries_total', { operation: 'schema_registry' })
  const deadLettered = async () => {
    const offsets = await endOffsets(kafka, config.WORKER_DLQ_TOPIC)
    return [...offsets.values()].reduce((sum, offset) => sum + Number(offset), 0)
  }

  it('retries while the registry is away, dead-letters nothing, and stores everything once it is back', async () => {
    const events = generateConversations({ count: total, seed: 77, historyItems: 8, ...liveSpan() })
    await proxy.down('hang')
    sent.push(...(await produceEvents(producer, codec, topic, events)))

    // Each way a restarting registry looks from the worker, in turn; each must be retried.
    const faults: Array<[ProxyFault, string]> = [
      ['hang', 'accepts connections and never answers'],
      ['refuse', 'refuses connections'],
      ['reset', 'drops connections'],
      [{ httpStatus: 503 }, 'answers 503 behind its gateway'],
      [{ httpStatus: 404 }, 'answers 404 behind its gateway (no backend route yet)'],
    ]
    for (const [fault, what] of faults) {
      await proxy.down(fault)
      const retriesBefore = await registryRetries()
      // Until two more retries, or the first message dead-lettered (then fail at once, saying so).
      const outcome = await waitFor(
        async () => ({
          retries: (await registryRetries()) - retriesBefore,
          deadLettered: await registrySum([registry], 'worker_dead_letter_total'),
        }),
        (now) => now.retries >= 2 || now.deadLettered > 0,
        120_000,
        `retries while the registry ${what}`,
      )
      expect(outcome.deadLettered, `dead-lettered while the registry ${what}`).toBe(0)
    }
    expect(await committedTotal(kafka, config.WORKER_GROUP_ID, topic)).toBe(0)
    expect(await registrySum([registry], 'worker_dead_letter_total')).toBe(0)
    expect(await deadLettered()).toBe(0)

    await proxy.up()
    await waitFor(
      () => committedTotal(kafka, config.WORKER_GROUP_ID, topic),
      (n) => n === total,
      120_000,
      'commits once the registry is back',
    )
    expect(proxy.passedConnections).toBeGreaterThan(0)
    expect(await registrySum([registry], 'worker_dead_letter_total')).toBe(0)
    expect(await deadLettered()).toBe(0)

    await worker!.stop()
    worker = undefined
    await expectStoredExactlyOnce(data.dir, sent, expect)
    expect(await domainTotals([registry])).toEqual(await expectedDomainTotals(sent))
  }, 300_000)
})
