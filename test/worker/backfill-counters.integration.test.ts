import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { createMetricsRegistry } from '../../core/runtime/metrics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { countFinal, database, queryRows } from '../support/embedded-clickhouse.ts'
import { committedTotal, produceEvents } from '../support/produce-events.ts'
import { waitFor } from '../support/wait-for.ts'
import { startWorkerFixture, type WorkerFixture } from '../support/worker-fixture.ts'
import { registrySum } from '../support/worker-metrics-reading.ts'

// An old backfill through the real worker (real Kafka, registry, embedded ClickHouse) pages nobody:
// conversations dated a year ago and last month, failed rooms among them, all received now, are
// stored in full but count only in voice_conversations_backfilled_total, while one live failed room
// counts in voice_failed_rooms_total and the latency histograms as before (live-conversation.ts).
const day = 24 * 3600_000
const agent = { agent_id: 'backfill-agent', agent_name: 'Backfill Agent' }

/** `count` conversations of one agent from `from`, the first `failed` of them with a failed room. */
function batch(seed: number, from: number, count: number, failed: number): ConversationCompleteEvent[] {
  return generateConversations({ count, seed, from, spanHours: 0.2, failedRoomRate: 0, historyItems: 6 }).map(
    (event, index) => {
      const data = { ...event.data, ...agent, session_id: `backfill-${seed}-${index}` }
      if (index < failed) {
        data.room_metadata = {
          failed: true,
          skipCompositeEgress: false,
          error: 'sip: 480 Temporarily Unavailable',
        }
        data.status = 'Failed'
      }
      return { ...event, data }
    },
  )
}

const turns = (events: readonly ConversationCompleteEvent[]) =>
  events
    .flatMap((event) => event.data.history ?? [])
    .filter((item) => typeof item.metrics?.e2e_latency === 'number').length

describe('worker: a backfill of old conversations counts apart from what happens now', () => {
  let fixture: WorkerFixture
  const registry = createMetricsRegistry('worker')
  const yearAgo = batch(1, Date.now() - 365 * day, 6, 3)
  const lastMonth = batch(2, Date.now() - 30 * day, 4, 2)
  const live = batch(3, Date.now() - 5 * 60_000, 1, 1)
  const all = [...yearAgo, ...lastMonth, ...live]

  beforeAll(async () => {
    fixture = await startWorkerFixture('backfill-counters', 2)
    // Received now, as an import or `send --generate` would post them: the receipt time does not make them live.
    await produceEvents(fixture.producer, fixture.codec, fixture.topic, all)
    await fixture.startWorker({}, { registry, metricsServer: false })
    // Counted once committed: every message committed, the counters are final.
    await waitFor(
      () => committedTotal(fixture.kafka, fixture.groupId, fixture.topic),
      (n) => n === all.length,
      120_000,
      'commits',
    )
  })

  afterAll(async () => {
    await fixture?.stop()
  })

  it('stores every conversation, old or live, with its failed room', async () => {
    expect(await countFinal(fixture.clickhouse, 'conversations')).toBe(all.length)
    const [failed] = await queryRows<{ n: number }>(
      fixture.clickhouse,
      `SELECT countIf(room_failed) AS n FROM ${database}.conversations FINAL`,
    )
    expect(Number(failed!.n)).toBe(6)
  })

  it('counts the live failed room only in voice_failed_rooms_total, and the old ones as backfilled', async () => {
    // The commit that makes the counts final may be a moment ahead of the counting: wait for the total.
    await waitFor(
      () => registrySum([registry], 'voice_conversations_backfilled_total'),
      (n) => n >= yearAgo.length + lastMonth.length,
      30_000,
      'the backfill counter',
    )
    expect(await registrySum([registry], 'voice_failed_rooms_total')).toBe(1)
    expect(await registrySum([registry], 'voice_failed_rooms_total', { agent: agent.agent_name })).toBe(1)
    expect(await registrySum([registry], 'voice_conversations_total')).toBe(1)
    expect(await registrySum([registry], 'voice_conversations_backfilled_total')).toBe(
      yearAgo.length + lastMonth.length,
    )
    expect(
      await registrySum([registry], 'voice_conversations_backfilled_total', {
        timing: 'older',
        room_failed: 'true',
      }),
    ).toBe(5)
  })

  it('observes the turn latencies of the live conversation only', async () => {
    expect(turns(live)).toBeGreaterThan(0)
    expect(turns(yearAgo) + turns(lastMonth)).toBeGreaterThan(0) // turns that must stay out
    expect(await registrySum([registry], 'voice_e2e_latency_seconds')).toBe(turns(live))
  })
})
