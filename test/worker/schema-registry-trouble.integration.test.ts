import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import type { RunningWorker } from '../../services/worker/worker.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { committedTotal, produceEvents, type Sent, topicMessageCount } from '../support/produce-events.ts'
import { expectExactCounts } from '../support/stored-rows.ts'
import { createTcpFaultProxy, type TcpFaultProxy } from '../support/tcp-fault-proxy.ts'
import { waitFor } from '../support/wait-for.ts'
import { startWorkerFixture, type WorkerFixture } from '../support/worker-fixture.ts'
import { metricValue } from '../support/worker-metrics-reading.ts'

// The worker reaches the real registry through a switchable pass-through: first every request is
// answered 404 (a gateway, a wrong path, an empty registry), then connections drop (registry
// down), then requests pass. While the registry cannot answer, nothing is dead-lettered and
// nothing committed, the worker says it is stalled (/healthz 503 with the reason, worker_stalled,
// worker_schema_registry_failing); once it answers, every message is stored exactly once.
describe('schema registry answering 404 or down at the worker', () => {
  let fixture: WorkerFixture
  let kafka: KafkaSettings
  let clickhouse: ClickHouseClient
  let worker: RunningWorker
  let proxy: TcpFaultProxy
  let topic: string
  let groupId: string
  let sent: Sent[]

  beforeAll(async () => {
    fixture = await startWorkerFixture('worker-registry', 2)
    ;({ kafka, clickhouse, topic, groupId } = fixture)
    const upstream = new URL(schemaRegistryUrl())
    proxy = await createTcpFaultProxy({ host: upstream.hostname, port: Number(upstream.port) })
    await proxy.down({ httpStatus: 404 })
    sent = await produceEvents(
      fixture.producer,
      fixture.codec,
      topic,
      generateConversations({ count: 40, seed: 53, historyItems: 6 }),
    )
    worker = await fixture.startWorker(
      {
        SCHEMA_REGISTRY_URL: `http://127.0.0.1:${proxy.port}${upstream.pathname}`,
        WORKER_STALL_SECONDS: '1',
      },
      { backoff: { baseMs: 100, maxMs: 500 } },
    )
  })

  afterAll(async () => {
    await fixture?.stop()
    await proxy?.close()
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
    expect(proxy.faultedConnections).toBeGreaterThan(0)
    expect(proxy.passedConnections).toBe(0)
    expect(await committedTotal(kafka, groupId, topic)).toBe(0)
    expect(await topicMessageCount(kafka, `${topic}.dlq`)).toBe(0)
  })

  it('down: still retried, nothing dead-lettered or committed', async () => {
    const url = worker.metricsUrl!
    await proxy.down('reset')
    const faultedBefore = proxy.faultedConnections
    const before = await metricValue(url, 'worker_retries_total{operation="schema_registry"')
    await waitFor(
      () => metricValue(url, 'worker_retries_total{operation="schema_registry"'),
      (n) => n >= before + 3 && proxy.faultedConnections > faultedBefore,
      60_000,
      'registry retries while down',
    )
    expect(await committedTotal(kafka, groupId, topic)).toBe(0)
    expect(await topicMessageCount(kafka, `${topic}.dlq`)).toBe(0)
  })

  it('answering again: every message stored exactly once, nothing dead-lettered, healthy again', async () => {
    const url = worker.metricsUrl!
    await proxy.up()
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

// The real Apicurio at a wrong path (its root, without /apis/ccompat/v7): every lookup is a 404.
// Nothing is dead-lettered or committed; a worker started again with the right path stores every
// message exactly once.
describe('SCHEMA_REGISTRY_URL with a wrong path on the real registry', () => {
  let fixture: WorkerFixture

  beforeAll(async () => {
    fixture = await startWorkerFixture('worker-registry-path', 2)
  })

  afterAll(async () => {
    await fixture?.stop()
  })

  it('waits instead of dead-lettering, and stores everything once the path is right', async () => {
    const { kafka, topic, groupId, codec, producer, clickhouse } = fixture
    const sent = await produceEvents(
      producer,
      codec,
      topic,
      generateConversations({ count: 30, seed: 59, historyItems: 5 }),
    )
    const rightUrl = schemaRegistryUrl()
    const wrongUrl = new URL(rightUrl).origin
    expect(wrongUrl).not.toBe(rightUrl)
    const options = { backoff: { baseMs: 100, maxMs: 500 } }

    let worker = await fixture.startWorker({ SCHEMA_REGISTRY_URL: wrongUrl }, options)
    const url = worker.metricsUrl!
    await waitFor(
      () => metricValue(url, 'worker_retries_total{operation="schema_registry"'),
      (n) => n >= 3,
      60_000,
      'registry retries',
    )
    expect(await metricValue(url, 'worker_schema_registry_failing')).toBe(1)
    expect(await committedTotal(kafka, groupId, topic)).toBe(0)
    expect(await topicMessageCount(kafka, `${topic}.dlq`)).toBe(0)
    await worker.stop()

    worker = await fixture.startWorker({ SCHEMA_REGISTRY_URL: rightUrl }, options)
    await waitFor(
      () => committedTotal(kafka, groupId, topic),
      (n) => n === sent.length,
      120_000,
      'commits with the right path',
    )
    await expectExactCounts(clickhouse, sent, expect)
    expect(await topicMessageCount(kafka, `${topic}.dlq`)).toBe(0)
  })
})
