import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import { committedOffsets } from '../../core/kafka/kafka-offsets.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import type { RunningWorker } from '../../services/worker/worker.ts'
import { countFinal, database, queryRows } from '../support/embedded-clickhouse.ts'
import { readTopic } from '../support/kafka-test-helpers.ts'
import { waitFor } from '../support/wait-for.ts'
import { startWorkerFixture, type WorkerFixture } from '../support/worker-fixture.ts'

// Poison between good messages of one partition: each lands in the DLQ with its original bytes
// and the error in headers, is counted, and the good ones around it arrive.
describe('poison messages', () => {
  let fixture: WorkerFixture
  let kafka: KafkaSettings
  let clickhouse: ClickHouseClient
  let worker: RunningWorker
  let topic: string
  let groupId: string
  const good = generateConversations({ count: 6, seed: 5, historyItems: 8 })
  const poison: Array<{ reason: string; value: Buffer | null }> = []

  beforeAll(async () => {
    fixture = await startWorkerFixture('worker-poison', 1)
    ;({ kafka, clickhouse, topic, groupId } = fixture)
    const { codec, producer } = fixture

    const encode = (index: number) =>
      codec.encode(toAvroRecord(good[index]!, { source: 'prod', receivedAt: Date.now() }))
    const valid = await Promise.all(good.map((_, index) => encode(index)))
    const unknownSchema = Buffer.concat([Buffer.from([0, 0x7f, 0xff, 0xff, 0x00]), valid[0]!.subarray(5)])
    const badTimestamp = generateConversations({ count: 1, seed: 77, historyItems: 4 })[0]!
    badTimestamp.data.start_time = 'the day before yesterday'
    poison.push(
      { reason: 'not_avro', value: Buffer.from('{"event":"ConversationComplete"}') },
      { reason: 'unknown_schema', value: unknownSchema },
      { reason: 'undecodable', value: valid[1]!.subarray(0, 40) },
      {
        reason: 'transform_error',
        value: await codec.encode(toAvroRecord(badTimestamp, { source: 'prod', receivedAt: 1 })),
      },
      { reason: 'empty_value', value: null },
    )
    const messages = []
    for (let index = 0; index < good.length; index++) {
      messages.push({ key: good[index]!.data.session_id, value: valid[index]! })
      const bad = poison[index]
      if (bad)
        messages.push({
          key: `poison-${bad.reason}`,
          value: bad.value,
          // A header name repeated (Kafka keeps every one): the dead letter keeps them all, in order.
          headers: { 'x-original': bad.reason, 'x-hop': ['first', 'second'] },
        })
    }
    await producer.sendBatch([{ topic, messages }])
    worker = await fixture.startWorker()
  })

  afterAll(async () => {
    await fixture?.stop()
  })

  it('stores the good messages around the poison', async () => {
    await waitFor(
      () => countFinal(clickhouse, 'conversations'),
      (n) => n >= good.length,
      60_000,
      'conversations',
    )
    const rows = await queryRows<{ session_id: string }>(
      clickhouse,
      `SELECT session_id FROM ${database}.conversations FINAL ORDER BY session_id`,
    )
    expect(rows.map((row) => row.session_id)).toEqual(good.map((event) => event.data.session_id).sort())
  })

  it('sends each poison message to the DLQ with its original bytes, headers and the error', async () => {
    const reader = await readTopic(kafka, `${topic}.dlq`)
    try {
      const dead = await reader.waitFor((messages) => messages.length >= poison.length, 60_000)
      expect(dead).toHaveLength(poison.length)
      for (const expected of poison) {
        const message = dead.find((candidate) => candidate.key?.toString() === `poison-${expected.reason}`)
        expect(message, expected.reason).toBeDefined()
        expect(message!.headers!['va-error-reason']!.toString()).toBe(expected.reason)
        expect(message!.headers!['x-original']!.toString()).toBe(expected.reason)
        expect(([] as Buffer[]).concat(message!.headers!['x-hop'] as Buffer[]).map(String)).toEqual([
          'first',
          'second',
        ])
        expect(message!.headers!['va-original-topic']!.toString()).toBe(topic)
        expect(message!.headers!['va-error-message']!.toString().length).toBeGreaterThan(0)
        if (expected.value === null) expect(message!.value).toBeNull()
        else expect(Buffer.compare(message!.value!, expected.value)).toBe(0)
      }
    } finally {
      await reader.stop()
    }
  })

  it('counts them by reason and commits past them', async () => {
    const metrics = await waitFor(
      async () => (await fetch(`${worker.metricsUrl}/metrics`)).text(),
      (text) => /worker_messages_consumed_total\{outcome="dead_lettered",service="worker"\} 5/.test(text),
      30_000,
      'metrics',
    )
    for (const { reason } of poison)
      expect(metrics).toMatch(
        new RegExp(`worker_dead_letter_total\\{reason="${reason}",service="worker"\\} 1`),
      )
    const committed = await withKafkaAdmin(kafka, (admin) => committedOffsets(admin, groupId, topic))
    expect(Number(committed.get(0))).toBe(good.length + poison.length)
  })
})
