import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { ensureTopics, withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import type { RunningWorker } from '../../services/worker/worker.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import { readTopic } from '../support/kafka-test-helpers.ts'
import { committedTotal } from '../support/produce-events.ts'
import { waitFor } from '../support/wait-for.ts'
import { startWorkerFixture, type WorkerFixture } from '../support/worker-fixture.ts'

// A poison message whose dead letter is larger than the DLQ topic takes (a DLQ created with
// max.message.bytes=4096): it goes to the DLQ truncated, with the error and where the original is,
// counted; the small poison beside it goes whole; the good messages around it are stored and
// the partition is committed past all of them.
const dlqLimit = 4096

describe('a poison message too large for the dead-letter topic', () => {
  let fixture: WorkerFixture
  let kafka: KafkaSettings
  let clickhouse: ClickHouseClient
  let worker: RunningWorker
  let topic: string
  let groupId: string
  const good = generateConversations({ count: 3, seed: 61, historyItems: 4 })
  const big = Buffer.from(JSON.stringify({ event: 'ConversationComplete', padding: 'x'.repeat(20_000) }))
  const small = Buffer.from('{"event":"ConversationComplete"}')

  beforeAll(async () => {
    fixture = await startWorkerFixture('worker-dlq-oversized', 1)
    ;({ kafka, clickhouse, topic, groupId } = fixture)
    await withKafkaAdmin(kafka, (admin) =>
      ensureTopics(admin, [
        {
          topic: `${topic}.dlq`,
          numPartitions: 1,
          configEntries: [{ name: 'max.message.bytes', value: String(dlqLimit) }],
        },
      ]),
    )
    const { codec, producer } = fixture
    const valid = await Promise.all(
      good.map((event) => codec.encode(toAvroRecord(event, { source: 'prod', receivedAt: Date.now() }))),
    )
    await producer.sendBatch([
      {
        topic,
        messages: [
          { key: good[0]!.data.session_id, value: valid[0]! },
          { key: 'poison-big', value: big, headers: { 'x-original': 'big' } },
          { key: good[1]!.data.session_id, value: valid[1]! },
          { key: 'poison-small', value: small },
          { key: good[2]!.data.session_id, value: valid[2]! },
        ],
      },
    ])
    worker = await fixture.startWorker({}, { backoff: { baseMs: 100, maxMs: 800 } })
  })

  afterAll(async () => {
    await fixture?.stop()
  })

  it('stores the good messages and commits past the poison', async () => {
    await waitFor(
      () => committedTotal(kafka, groupId, topic),
      (n) => n === 5,
      90_000,
      'commits past the poison',
    )
    const rows = await queryRows<{ session_id: string }>(
      clickhouse,
      `SELECT session_id FROM ${database}.conversations FINAL ORDER BY session_id`,
    )
    expect(rows.map((row) => row.session_id)).toEqual(good.map((event) => event.data.session_id).sort())
  })

  it('dead-letters the big one truncated (error, origin, size in headers) and the small one whole, counted', async () => {
    const reader = await readTopic(kafka, `${topic}.dlq`)
    try {
      const dead = await reader.waitFor((messages) => messages.length >= 2, 60_000)
      expect(dead).toHaveLength(2)
      const whole = dead.find((message) => message.key?.toString() === 'poison-small')!
      expect(Buffer.compare(whole.value!, small)).toBe(0)
      expect(whole.headers!['va-dead-letter-reduced']).toBeUndefined()

      const cut = dead.find((message) => message.key?.toString() === 'poison-big')!
      const headers = Object.fromEntries(
        Object.entries(cut.headers!).map(([name, value]) => [name, value?.toString()]),
      )
      expect(headers).toMatchObject({
        'va-dead-letter-reduced': 'truncated',
        'va-error-reason': 'not_avro',
        'va-original-topic': topic,
        'va-original-partition': '0',
        'va-original-offset': '1',
        'va-original-value-bytes': String(big.length),
        'x-original': 'big',
      })
      expect(cut.value!.length).toBeGreaterThan(0)
      expect(cut.value!.length).toBeLessThan(dlqLimit)
      expect(Buffer.compare(cut.value!, big.subarray(0, cut.value!.length))).toBe(0)
    } finally {
      await reader.stop()
    }
    const metrics = await (await fetch(`${worker.metricsUrl}/metrics`)).text()
    expect(metrics).toMatch(/worker_dead_letter_oversized_total\{stored="truncated",service="worker"\} 1\n/)
    expect(metrics).toMatch(/worker_dead_letter_total\{reason="not_avro",service="worker"\} 2\n/)
  })
})
