import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../core/runtime/logger.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { kafkaBrokers } from '../stack/servers.ts'
import { countFinal } from '../support/embedded-clickhouse.ts'
import { logSink } from '../support/log-sink.ts'
import { freePort } from '../support/private-kafka.ts'
import { produceEvents } from '../support/produce-events.ts'
import { expectExactCounts } from '../support/stored-rows.ts'
import { createTcpFaultProxy, type TcpFaultProxy } from '../support/tcp-fault-proxy.ts'
import { waitFor } from '../support/wait-for.ts'
import { startWorkerFixture, type WorkerFixture } from '../support/worker-fixture.ts'

// A worker started before its broker answers (compose starting both, a broker restarting during a
// deploy) waits for it, as it waits for ClickHouse, instead of exiting: the shared broker behind a
// fault proxy that refuses connections (nothing listens), then lets them through.
describe('a worker started while Kafka is unreachable', () => {
  let fixture: WorkerFixture
  let proxy: TcpFaultProxy

  beforeAll(async () => {
    fixture = await startWorkerFixture('worker-kafka-late', 2)
    const [host, port] = kafkaBrokers().split(',')[0]!.split(':')
    proxy = await createTcpFaultProxy({ host: host!, port: Number(port) })
    await proxy.down('refuse')
  }, 120_000)

  afterAll(async () => {
    await fixture?.stop()
    await proxy?.close()
  }, 120_000)

  it('keeps retrying until the broker answers, then stores what waited, once', async () => {
    const events = generateConversations({ count: 40, seed: 5150, historyItems: 4 })
    const sent = await produceEvents(fixture.producer, fixture.codec, fixture.topic, events)
    const metricsPort = await freePort()
    const { sink, logs } = logSink()
    const starting = fixture.startWorker(
      { KAFKA_BROKERS: `127.0.0.1:${proxy.port}`, WORKER_METRICS_PORT: String(metricsPort) },
      { backoff: { baseMs: 100, maxMs: 500 } },
      createLogger('worker-test', 'warn', sink),
    )
    let settled = false
    const outcome = starting.then(
      () => 'started',
      (error: Error) => `failed: ${error.message}`,
    )
    void outcome.finally(() => (settled = true))
    // Several attempts refused: still starting, neither started nor failed.
    await waitFor(
      async () => logs.filter((line) => line.includes('Kafka not ready: retrying')).length,
      (attempts) => attempts >= 3 || settled,
      120_000,
      'three refused attempts to reach Kafka',
    )
    expect(settled).toBe(false)
    // Alive meanwhile, so an orchestrator does not restart it, but not ready (#21).
    const probe = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${metricsPort}${path}`)
      return { status: response.status, body: (await response.json()) as Record<string, unknown> }
    }
    expect(await probe('/healthz')).toMatchObject({
      status: 200,
      body: { consumer: 'starting', waitingFor: 'kafka' },
    })
    expect(await probe('/readyz')).toMatchObject({
      status: 503,
      body: { consumer: 'starting', waitingFor: 'kafka' },
    })
    await proxy.up()
    expect(await outcome).toBe('started')
    expect(await probe('/readyz')).toMatchObject({ status: 200, body: { consumer: 'running' } })
    await waitFor(
      () => countFinal(fixture.clickhouse, 'conversations'),
      (stored) => stored >= events.length,
      120_000,
      'conversations stored',
    )
    await (await starting).stop()
    await expectExactCounts(fixture.clickhouse, sent, expect)
  }, 180_000)
})
