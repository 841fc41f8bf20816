import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventCodec } from '../../core/event/event-codec.ts'
import type { BatchProducer } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
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
import { metricSum } from '../support/worker-metrics-reading.ts'
import { workerEnv } from '../support/worker-settings.ts'

// The worker process (`node services/worker/main.ts`) is killed with SIGKILL in the middle of its
// batches, several times, while 10,000 conversations flow in; after a last, clean run every table
// holds exactly what was sent: nothing lost, nothing doubled.
const workerMain = fileURLToPath(new URL('../../services/worker/main.ts', import.meta.url))
const total = 10_000
const kills = 4

interface WorkerProcess {
  child: ChildProcess
  metricsUrl: Promise<string>
  exited: Promise<number | null>
}

function spawnWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, [workerMain], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const metricsUrl = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /"metrics":"(http:\/\/[^"]+)"/.exec(output)
      if (match) resolve(match[1]!)
    })
    child.once('exit', (code) =>
      reject(new Error(`worker exited (${code}) before consuming:\n${output.slice(-2000)}`)),
    )
  })
  metricsUrl.catch(() => {})
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, metricsUrl, exited }
}

describe('SIGKILL in the middle of batches', () => {
  const data = tempDataDir('worker-sigkill')
  let kafka: KafkaSettings
  let producer: BatchProducer
  let codec: EventCodec
  let topic: string
  let env: Record<string, string>
  let running: WorkerProcess | undefined
  const sent: Sent[] = []

  beforeAll(async () => {
    kafka = testKafka()
    topic = await createTestTopic(kafka, 'worker-sigkill', 4)
    codec = await testCodec()
    producer = await connectedProducer(kafka)
    env = workerEnv(topic, data.dir, {
      WORKER_GROUP_ID: `va-test-worker-sigkill-${topic}`,
      WORKER_SESSION_TIMEOUT_MS: '6000',
    })
  })

  afterAll(async () => {
    running?.child.kill('SIGKILL')
    await producer?.disconnect()
    data.remove()
  })

  it('loses nothing and doubles nothing', async () => {
    const events = generateConversations({ count: total, seed: 2026, historyItems: 6, spanHours: 2 })
    const chunk = total / (kills + 1)
    const produce = async (start: number) => {
      for (let at = start; at < start + chunk; at += 50) {
        sent.push(...(await produceEvents(producer, codec, topic, events.slice(at, at + 50))))
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    await produce(0)
    let midBatch = 0
    for (let kill = 0; kill < kills; kill++) {
      running = spawnWorker(env)
      const url = await running.metricsUrl
      await waitFor(
        () => metricSum(url, 'worker_rows_inserted_total{'),
        (n) => n > 0,
        90_000,
        'rows flowing',
      )
      // More conversations keep arriving while this worker runs; pull the plug while a batch is
      // between receipt and commit.
      let producing = true
      const production = produce((kill + 1) * chunk).finally(() => {
        producing = false
      })
      let inFlight = false
      while (!inFlight && producing) {
        inFlight = (await metricSum(url, 'worker_batches_in_flight{')) > 0
        if (!inFlight) await new Promise((resolve) => setTimeout(resolve, 5))
      }
      running.child.kill('SIGKILL')
      expect(await running.exited).toBeNull()
      if (inFlight) midBatch++
      await production
    }
    expect(midBatch).toBeGreaterThan(0)
    expect(sent).toHaveLength(total)

    running = spawnWorker(env)
    await running.metricsUrl
    await waitFor(
      () => committedTotal(kafka, env.WORKER_GROUP_ID!, topic),
      (n) => n === total,
      240_000,
      'all committed',
    )
    running.child.kill('SIGTERM')
    expect(await running.exited).toBe(0)
    running = undefined

    await expectStoredExactlyOnce(data.dir, sent, expect)
  }, 600_000)
})
