import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { histogramQuantile, mergedHistogram } from '../../dashboards/src/latency-histogram.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { fixtureNames, loadFixture } from '../fixtures/index.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import { committedTotal, produceEvents, type Sent } from '../support/produce-events.ts'
import { expectExactCounts } from '../support/stored-rows.ts'
import { waitFor } from '../support/wait-for.ts'
import { startWorkerFixture, type WorkerFixture } from '../support/worker-fixture.ts'

// The same conversation delivered twice by the platform, and the whole topic replayed by a
// second consumer group (other batch boundaries, so other insert tokens), are counted once in
// the base tables, the rollup and dashboard-style queries.
/** The e2e histogram of every value (flagged ones too), merged: latency-histogram.ts with the variable at 1. */
const everyValue = mergedHistogram('e2e_latency', undefined, '1')
const dashboardQueries = {
  conversationsPerAgentHour: `SELECT agent_id, toStartOfHour(event_time) AS hour, count() AS conversations,
      countIf(room_failed) AS failed_rooms, sum(item_count) AS items
    FROM ${database}.conversations FINAL GROUP BY agent_id, hour ORDER BY agent_id, hour`,
  latencyPerAgentMinute: `SELECT agent_id, minute, conversations, e2e_latency_samples, round(e2e_latency_avg, 9) AS e2e_avg,
      llm_node_ttft_samples, tts_node_ttfb_samples, transcription_delay_samples, end_of_turn_delay_samples
    FROM ${database}.agent_latency_per_minute ORDER BY agent_id, minute`,
  p95PerAgent: `SELECT agent_id, sum(e2e_latency_count) AS samples,
      round(${histogramQuantile(0.95, everyValue)}, 3) AS p95
    FROM ${database}.agent_latency_minute FINAL GROUP BY agent_id ORDER BY agent_id`,
  perCampaign: `SELECT campaign_id, count() AS conversations, countIf(failed) AS failed,
      round(${histogramQuantile(0.9, everyValue)}, 3) AS p90
    FROM ${database}.conversation_latency FINAL GROUP BY campaign_id ORDER BY campaign_id`,
  toolErrors: `SELECT tool_name, count() AS calls, countIf(tool_is_error) AS errors
    FROM ${database}.tool_calls FINAL GROUP BY tool_name ORDER BY tool_name`,
  itemsPerRole: `SELECT role, count() AS items, round(sum(e2e_latency), 6) AS e2e_total
    FROM ${database}.conversation_items FINAL GROUP BY role ORDER BY role`,
  campaigns: `SELECT campaign_id, calls, campaign_items, failed_rooms FROM ${database}.campaigns ORDER BY campaign_id`,
  testRuns: `SELECT test_run_id, tests, test_conversations, passed, failed FROM ${database}.test_runs ORDER BY test_run_id`,
  handoffs: `SELECT to_agent_id, count() AS handoffs FROM ${database}.handoffs FINAL GROUP BY to_agent_id ORDER BY to_agent_id`,
}

async function runAll(client: ClickHouseClient): Promise<Record<string, unknown[]>> {
  const results: Record<string, unknown[]> = {}
  for (const [name, query] of Object.entries(dashboardQueries)) results[name] = await queryRows(client, query)
  return results
}

describe('exactly once, as queries see it', () => {
  let fixture: WorkerFixture
  let clickhouse: ClickHouseClient
  let unique: Sent[]
  let messages = 0

  beforeAll(async () => {
    fixture = await startWorkerFixture('worker-exactly-once', 3)
    clickhouse = fixture.clickhouse
    const { producer, codec, topic } = fixture
    const events: ConversationCompleteEvent[] = [
      ...fixtureNames.map(loadFixture),
      ...generateConversations({ count: 300, seed: 99, historyItems: 20 }),
    ]
    const first = Date.parse('2026-04-01T08:00:00Z')
    unique = await produceEvents(producer, codec, topic, events, 'prod', (index) => first + index)
    // The platform delivers 60 conversations again, later; the newest delivery says 'Redelivered'.
    const again = events
      .slice(0, 60)
      .map((event) => ({ ...event, data: { ...event.data, status: 'Redelivered' } }))
    const redelivered = await produceEvents(
      producer,
      codec,
      topic,
      again,
      'prod',
      (index) => first + 3_600_000 + index,
    )
    unique = [...redelivered, ...unique.slice(60)]
    messages = events.length + again.length
  })

  afterAll(async () => {
    await fixture?.stop()
  })

  async function consumeAll(groupSuffix: string): Promise<void> {
    const { kafka, topic } = fixture
    const groupId = `va-test-exactly-once-${groupSuffix}-${topic}`
    const worker = await fixture.startWorker({ WORKER_GROUP_ID: groupId }, { metricsServer: false })
    await waitFor(
      () => committedTotal(kafka, groupId, topic),
      (n) => n === messages,
      120_000,
      'commits',
    )
    await worker.stop()
  }

  let before: Record<string, unknown[]>

  it('counts a conversation delivered twice once, the newest delivery winning', async () => {
    await consumeAll('first')
    await expectExactCounts(clickhouse, unique, expect)
    const [statuses] = await queryRows<{ redelivered: number }>(
      clickhouse,
      `SELECT countIf(status = 'Redelivered') AS redelivered FROM ${database}.conversations FINAL`,
    )
    expect(statuses!.redelivered).toBe(60)
    before = await runAll(clickhouse)
    expect(
      (before.conversationsPerAgentHour as Array<{ conversations: number }>).reduce(
        (sum, row) => sum + row.conversations,
        0,
      ),
    ).toBe(unique.length)
  })

  it('counts nothing twice after the whole topic is consumed again by another group', async () => {
    await consumeAll('replay')
    await expectExactCounts(clickhouse, unique, expect)
    expect(await runAll(clickhouse)).toEqual(before)
  })
})
