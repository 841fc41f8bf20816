import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { conversationTables } from '../../core/clickhouse/clickhouse-retention.ts'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import type { EventCodec } from '../../core/event/event-codec.ts'
import { ensureTopics, withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import { partitionOffsets } from '../../core/kafka/kafka-offsets.ts'
import type { BatchProducer } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { createMetricsRegistry, type Registry } from '../../core/runtime/metrics.ts'
import { loadFixture } from '../fixtures/index.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import { committedTotal, produceEvents, type Sent } from '../support/produce-events.ts'
import { expectStoredRowsEqual } from '../support/stored-rows.ts'
import { waitFor } from '../support/wait-for.ts'
import { startWorkerFixture, type WorkerFixture } from '../support/worker-fixture.ts'

// A conversation the platform delivers again is stored once, and only its newest delivery is
// visible (FINAL) in every table and the rollup, whatever changed in between: fewer items, another
// agent, another start time, no time at all, or an older delivery arriving after a newer one. The
// domain counters count each conversation once (dated 1960-2025, each in the backfill counter, none
// in the live ones). A replay of the topic changes nothing.
const hour = 3_600_000
const t0 = Date.parse('2026-04-01T08:00:00Z')

function conversation(
  sessionId: string,
  change: (data: ConversationCompleteEvent['data']) => void = () => {},
) {
  const event = loadFixture('full')
  event.data.session_id = sessionId
  change(event.data)
  return event
}

async function conversationsCounted(
  registry: Registry,
  name: 'voice_conversations_total' | 'voice_conversations_backfilled_total',
): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get()
  return (metric?.values ?? []).reduce((sum, value) => sum + value.value, 0)
}

async function tablesAsStored(client: ClickHouseClient): Promise<Record<string, unknown[]>> {
  const tables = conversationTables
  const result: Record<string, unknown[]> = {}
  for (const table of tables)
    result[table] = await queryRows(
      client,
      // inserted_at is when a row was written: a replay writes the same rows again, later.
      `SELECT * ${table === 'conversations' ? 'EXCEPT (inserted_at)' : ''} FROM ${database}.${table} FINAL ORDER BY ALL`,
    )
  result.rollup = await queryRows(
    client,
    `SELECT agent_id, minute, session_id, version, e2e_latency_count, e2e_latency_sum
      FROM ${database}.agent_latency_minute FINAL ORDER BY ALL`,
  )
  return result
}

describe('re-deliveries: one row per key, only the newest delivery visible', () => {
  let fixture: WorkerFixture
  let kafka: KafkaSettings
  let producer: BatchProducer
  let codec: EventCodec
  let clickhouse: ClickHouseClient
  let topic: string
  let newest: Sent[]
  const registry = createMetricsRegistry('worker')

  // Each case: the deliveries in the order the platform sends them, and when each was received.
  const noTime = (data: ConversationCompleteEvent['data']) => {
    delete data.start_time
    delete data.created_at
  }
  // Items dated before 1970: the rollup's DateTime minute saturates to 1970-01-01 (two minutes, one key).
  const dated1960 = (data: ConversationCompleteEvent['data']) => {
    const times = ['1960-03-01T10:00:00.000Z', '1960-03-01T10:07:00.000Z']
    data.history = data.history!.map((item, index) => ({ ...item, created_at: times[index % 2] }))
  }
  const first = [
    conversation('redelivery-no-time', noTime),
    conversation('redelivery-fewer-items'),
    conversation('redelivery-other-agent'),
    conversation('redelivery-other-start'),
    // the newer delivery of this one is received first; the older one arrives after it
    conversation('redelivery-late-older', (data) => {
      data.history = data.history!.slice(0, 20)
    }),
    conversation('redelivery-before-1970', dated1960),
  ]
  const second = [
    conversation('redelivery-no-time', noTime),
    conversation('redelivery-fewer-items', (data) => {
      data.history = data.history!.slice(0, 12) // drops tool calls, the handoff, rollup minutes
    }),
    conversation('redelivery-other-agent', (data) => {
      data.agent_id = 'another-agent'
      data.agent_name = 'Another agent'
    }),
    conversation('redelivery-other-start', (data) => {
      data.start_time = '2025-08-01T10:00:00Z' // another month: another partition
    }),
    conversation('redelivery-late-older', (data) => {
      data.agent_id = 'an-older-agent'
    }),
    conversation('redelivery-before-1970', dated1960),
  ]

  beforeAll(async () => {
    fixture = await startWorkerFixture('worker-redelivery', 2)
    ;({ kafka, producer, codec, clickhouse, topic } = fixture)
  })

  afterAll(async () => {
    await fixture?.stop()
  })

  async function consume(group: string, messages: number, options: { registry?: Registry } = {}) {
    const groupId = `va-test-redelivery-${group}-${topic}`
    const worker = await fixture.startWorker(
      { WORKER_GROUP_ID: groupId },
      { metricsServer: false, ...options },
    )
    await waitFor(
      () => committedTotal(kafka, groupId, topic),
      (n) => n === messages,
      120_000,
      'commits',
    )
    return worker
  }

  it('stores only the newest delivery of each conversation, in every table and the rollup, counted once', async () => {
    const late = (index: number) => (index === 4 ? t0 + 2 * hour : t0 + index)
    const firstSent = await produceEvents(producer, codec, topic, first, 'prod', late)
    const worker = await consume('first', first.length, { registry })
    const secondSent = await produceEvents(
      producer,
      codec,
      topic,
      second,
      'prod',
      (index) => t0 + hour + index,
    )
    await waitFor(
      () => committedTotal(kafka, `va-test-redelivery-first-${topic}`, topic),
      (n) => n === first.length + second.length,
      120_000,
      'commits',
    )
    await worker.stop()
    newest = [...secondSent.slice(0, 4), firstSent[4]!, secondSent[5]!]
    await expectStoredRowsEqual(clickhouse, newest, expect)
    const [noTimeRow] = await queryRows<{ event_time_source: string }>(
      clickhouse,
      `SELECT event_time_source FROM ${database}.conversations FINAL WHERE session_id = 'redelivery-no-time'`,
    )
    expect(noTimeRow?.event_time_source).toBe('earliest_timestamp')
    expect(await conversationsCounted(registry, 'voice_conversations_backfilled_total')).toBe(first.length)
    expect(await conversationsCounted(registry, 'voice_conversations_total')).toBe(0)
  })

  it('a replay of the whole topic by another group changes nothing', async () => {
    const before = await tablesAsStored(clickhouse)
    const worker = await consume('replay', first.length + second.length)
    await worker.stop()
    await expectStoredRowsEqual(clickhouse, newest, expect)
    expect(await tablesAsStored(clickhouse)).toEqual(before)
  })
})

describe('a topic deleted and re-created (offsets restart at 0)', () => {
  let fixture: WorkerFixture
  let kafka: KafkaSettings
  let producer: BatchProducer
  let codec: EventCodec
  let clickhouse: ClickHouseClient
  let topic: string

  beforeAll(async () => {
    fixture = await startWorkerFixture('worker-recreated', 1)
    ;({ kafka, producer, codec, clickhouse, topic } = fixture)
  })

  afterAll(async () => {
    await fixture?.stop()
  })

  async function consumeOne(group: string): Promise<void> {
    const groupId = `va-test-recreated-${group}-${topic}`
    const worker = await fixture.startWorker({ WORKER_GROUP_ID: groupId }, { metricsServer: false })
    try {
      await waitFor(
        () => committedTotal(kafka, groupId, topic),
        (n) => n === 1,
        120_000,
        'commit',
      )
    } finally {
      await worker.stop()
    }
  }

  async function recreateTopic(): Promise<void> {
    await withKafkaAdmin(kafka, async (admin) => {
      await admin.deleteTopics({ topics: [topic] })
      // Deletion completes in the background; creating the topic again is refused until it has.
      await waitFor(
        async () => {
          try {
            await ensureTopics(admin, [{ topic, numPartitions: 1 }])
            return (await partitionOffsets(admin, topic)).every((partition) => partition.high === 0n)
          } catch {
            return false
          }
        },
        (created) => created,
        60_000,
        'topic re-created',
      )
    })
  }

  it('stores the new data although its offsets are those of old data', async () => {
    const [before] = await produceEvents(
      producer,
      codec,
      topic,
      [conversation('before-recreation')],
      'prod',
      () => t0,
    )
    await consumeOne('before')
    await recreateTopic()
    const [after] = await produceEvents(
      producer,
      codec,
      topic,
      [conversation('after-recreation')],
      'prod',
      () => t0 + 1,
    )
    await consumeOne('after')
    const sessions = await queryRows<{ session_id: string }>(
      clickhouse,
      `SELECT session_id FROM ${database}.conversations FINAL ORDER BY session_id`,
    )
    expect(sessions.map((row) => row.session_id)).toEqual(['after-recreation', 'before-recreation'])
    await expectStoredRowsEqual(clickhouse, [before!, after!], expect)
  })
})
