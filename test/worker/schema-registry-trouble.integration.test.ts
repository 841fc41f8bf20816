import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../services/core/clickhouse.ts'
import type { EventCodec } from '../../services/core/event-codec.ts'
import type { Kafka, Producer } from '../../services/core/kafka.ts'
import { generateConversations } from '../../services/synthetic/conversation-generator.ts'
import { type RunningWorker, startWorker } from '../../services/worker/worker.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { createTestTopic, testKafka } from '../support/kafka-test-helpers.ts'
import { type SwitchableHttpProxy, startSwitchableHttpProxy } from '../support/switchable-http-proxy.ts'
import {
  committedTotal,
  connectedProducer,
  embeddedClickHouse,
  expectExactCounts,
  metricValue,
  produceEvents,
  type Sent,
  tempDataDir,
  testCodec,
  testLogger,
  topicMessageCount,
  waitFor,
  workerConfig,
} from './worker-test-support.ts'

// The worker reaches the real registry through a switchable pass-through: first every request is
// answered 404 (a gateway, a wrong path, an empty registry), then connections drop (registry
// down), then requests pass. While the registry cannot answer, nothing is dead-lettered and
// nothing committed, the worker says it is stalled (/healthz 503 with the reason, worker_stalled,
// worker_schema_registry_failing); once it answers, every message is stored exactly once.
describe('schema registry answering 404 or down at the worker', () => {
  const data = tempDataDir('worker-registry')
  let kafka: Kafka
  let producer: Producer
  let codec: EventCodec
  let clickhouse: ClickHouseClient
  let worker: RunningWorker
  let proxy: SwitchableHttpProxy
  let topic: string
  let groupId: string
  let sent: Sent[]

  beforeAll(async () => {
    kafka = testKafka()
    topic = await createTestTopic(kafka, 'worker-registry', 2)
    groupId = `va-test-worker-registry-${topic}`
    codec = await testCodec()
    producer = await connectedProducer(kafka)
    clickhouse = embeddedClickHouse(data.dir)
    proxy = await startSwitchableHttpProxy(schemaRegistryUrl())
    proxy.mode = 'not_found'
    sent = await produceEvents(
      producer,
      codec,
      topic,
      generateConversations({ count: 40, seed: 53, historyItems: 6 }),
    )
    worker = await startWorker(
      workerConfig(topic, data.dir, {
        WORKER_GROUP_ID: groupId,
        SCHEMA_REGISTRY_URL: proxy.url,
        WORKER_STALL_SECONDS: '1',
      }),
      testLogger(),
      { clickhouse, backoff: { baseMs: 100, maxMs: 500 } },
    )
  })

  afterAll(async () => {
    await worker?.stop()
    await proxy?.close()
    await producer?.disconnect()
    await clickhouse?.close()
    data.remove()
  })

  it('404 everywhere: retried, nothing dead-lettered or committed, /healthz 503 with the reason', async () => {
    const url = worker.metricsUrl!
    await waitFor(
      () => metricValue(url, 'worker_retries_total{operation="schema_registry"'),
      (n) => n >= 3,
      60_000,
      'registry retries',
    )
    const health = await waitFor(
      async () => {
        const response = await fetch(`${url}/healthz`)
        return { status: response.status, body: (await response.json()) as { reason?: string } }
      },
      (answer) => answer.status === 503,
      60_000,
      '/healthz 503',
    )
    expect(health.body.reason).toContain('schema_registry')
    expect(await metricValue(url, 'worker_schema_registry_failing')).toBe(1)
    expect(await metricValue(url, 'worker_stalled')).toBe(1)
    expect(proxy.seen.not_found).toBeGreaterThan(0)
    expect(proxy.seen.pass).toBe(0)
    expect(await committedTotal(kafka, groupId, topic)).toBe(0)
    expect(await topicMessageCount(kafka, `${topic}.dlq`)).toBe(0)
  })

  it('down: still retried, nothing dead-lettered or committed', async () => {
    const url = worker.metricsUrl!
    proxy.mode = 'down'
    const before = await metricValue(url, 'worker_retries_total{operation="schema_registry"')
    await waitFor(
      () => metricValue(url, 'worker_retries_total{operation="schema_registry"'),
      (n) => n >= before + 3 && proxy.seen.down > 0,
      60_000,
      'registry retries while down',
    )
    expect(await committedTotal(kafka, groupId, topic)).toBe(0)
    expect(await topicMessageCount(kafka, `${topic}.dlq`)).toBe(0)
  })

  it('answering again: every message stored exactly once, nothing dead-lettered, healthy again', async () => {
    const url = worker.metricsUrl!
    proxy.mode = 'pass'
    await waitFor(
      () => committedTotal(kafka, groupId, topic),
      (n) => n === sent.length,
      120_000,
      'commits once the registry answers',
    )
    await expectExactCounts(clickhouse, sent, expect)
    expect(await topicMessageCount(kafka, `${topic}.dlq`)).toBe(0)
    expect(await metricValue(url, 'worker_schema_registry_failing')).toBe(0)
    const health = await waitFor(
      async () => (await fetch(`${url}/healthz`)).status,
      (status) => status === 200,
      30_000,
      '/healthz 200',
    )
    expect(health).toBe(200)
    expect(await metricValue(url, 'worker_stalled')).toBe(0)
  })
})
