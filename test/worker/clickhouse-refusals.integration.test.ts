import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import type { RunningWorker } from '../../services/worker/worker.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import { readTopic } from '../support/kafka-test-helpers.ts'
import { committedTotal, produceEvents, topicMessageCount } from '../support/produce-events.ts'
import { expectExactCounts, expectedRows } from '../support/stored-rows.ts'
import { waitFor } from '../support/wait-for.ts'
import { startWorkerFixture, type WorkerFixture } from '../support/worker-fixture.ts'
import { metricValue } from '../support/worker-metrics-reading.ts'

// ClickHouse refusing a write, for each class of core/clickhouse/clickhouse-errors.ts that is not transient
// (transient: clickhouse-outage.integration.test.ts), on real embedded chDB:
// - shape: none left to provoke — a backfill spread over more months than max_partitions_per_insert_block
//   (100), which ClickHouse refused before #30 and the worker then split by partition, is stored in
//   one write (throw_on_max_partitions_per_insert_block = 0), nothing split nor dead-lettered (the
//   split itself: batch-writer.unit.test.ts);
// - data: a message ClickHouse refuses (a CHECK constraint of this test's table) goes to the DLQ,
//   its neighbours in the same write are stored.
describe('a backfill over more months than one insert may touch', () => {
  let fixture: WorkerFixture
  let kafka: KafkaSettings
  let clickhouse: ClickHouseClient
  let worker: RunningWorker
  let topic: string
  let groupId: string

  beforeAll(async () => {
    fixture = await startWorkerFixture('worker-shape', 1)
    ;({ kafka, clickhouse, topic, groupId } = fixture)
  })

  afterAll(async () => {
    await fixture?.stop()
  })

  it('is stored in one write, not refused nor split: every row stored, nothing dead-lettered', async () => {
    // One conversation a month for 150 months, all in the topic before the worker starts: they
    // arrive in one fetch and one write that touches 150 partitions of every table.
    const events = generateConversations({
      count: 150,
      seed: 41,
      historyItems: 4,
      from: '2012-01-15T00:00:00Z',
      spanHours: 150 * 730,
    })
    const sent = await produceEvents(fixture.producer, fixture.codec, topic, events)
    worker = await fixture.startWorker({}, { backoff: { baseMs: 100, maxMs: 800 } })
    await waitFor(
      () => committedTotal(kafka, groupId, topic),
      (n) => n === events.length,
      120_000,
      'commits of the backfill',
    )
    await expectExactCounts(clickhouse, sent, expect)
    const [months] = await queryRows<{ n: number }>(
      clickhouse,
      `SELECT uniqExact(toYYYYMM(event_time)) AS n FROM ${database}.conversations`,
    )
    expect(Number(months?.n)).toBeGreaterThan(100)
    expect(await metricValue(worker.metricsUrl!, 'worker_clickhouse_write_splits_total{reason="shape"')).toBe(
      0,
    )
    expect(
      await metricValue(worker.metricsUrl!, 'worker_messages_consumed_total{outcome="dead_lettered"'),
    ).toBe(0)
    expect(await topicMessageCount(kafka, `${topic}.dlq`)).toBe(0)
  })
})

describe('a write ClickHouse refuses for the data of one message', () => {
  let fixture: WorkerFixture
  let kafka: KafkaSettings
  let clickhouse: ClickHouseClient
  let _worker: RunningWorker
  let topic: string
  let groupId: string

  beforeAll(async () => {
    fixture = await startWorkerFixture('worker-data-refusal', 1)
    ;({ kafka, clickhouse, topic, groupId } = fixture)
    await runMigrations(clickhouse, database)
    // A rule of this test's ClickHouse that one conversation breaks: ClickHouse refuses it (469).
    await clickhouse.command({
      query: `ALTER TABLE ${database}.conversations ADD CONSTRAINT refuse_marked CHECK agent_name != 'refuse-me'`,
    })
  })

  afterAll(async () => {
    await fixture?.stop()
  })

  it('dead-letters that message alone and stores its neighbours', async () => {
    const events = generateConversations({ count: 30, seed: 43, historyItems: 4 })
    const refused = events[13]!
    refused.data.agent_name = 'refuse-me'
    const sent = await produceEvents(fixture.producer, fixture.codec, topic, events)
    _worker = await fixture.startWorker({}, { backoff: { baseMs: 100, maxMs: 800 } })
    await waitFor(
      () => committedTotal(kafka, groupId, topic),
      (n) => n === events.length,
      120_000,
      'commits',
    )
    const reader = await readTopic(kafka, `${topic}.dlq`)
    try {
      const dead = await reader.waitFor((messages) => messages.length >= 1, 60_000)
      expect(dead).toHaveLength(1)
      expect(dead[0]!.key?.toString()).toBe(refused.data.session_id)
      expect(dead[0]!.headers!['va-error-reason']!.toString()).toBe('rejected_by_clickhouse')
      expect(dead[0]!.headers!['va-error-message']!.toString()).toContain('refuse_marked')
    } finally {
      await reader.stop()
    }
    const stored = await queryRows<{ session_id: string }>(
      clickhouse,
      `SELECT session_id FROM ${database}.conversations FINAL ORDER BY session_id`,
    )
    expect(stored.map((row) => row.session_id)).toEqual(
      events
        .filter((event) => event !== refused)
        .map((event) => event.data.session_id)
        .sort(),
    )
    // The neighbours' items are all there. (The refused message's items may be stored too: the
    // tables are separate inserts, and only the conversations table refuses it; its DLQ copy is
    // what a replay restores.)
    const neighbours = sent.filter(({ event }) => event !== refused)
    const [items] = await queryRows<{ n: number }>(
      clickhouse,
      `SELECT count() AS n FROM ${database}.conversation_items FINAL WHERE session_id != '${refused.data.session_id}'`,
    )
    expect(Number(items?.n)).toBe(expectedRows(neighbours).conversation_items.length)
  })
})
