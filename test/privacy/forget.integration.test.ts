import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { topics } from '../../core/kafka/topics.ts'
import { type ErasureSelector, messageNeedles } from '../../core/privacy/erasure/erasure-selector.ts'
import {
  erasureStatus,
  type ForgetRequest,
  forgetConversations,
} from '../../core/privacy/erasure/forget-conversations.ts'
import { searchTopics } from '../../core/privacy/erasure/topic-search.ts'
import { hashPhone } from '../../core/privacy/pii/pii-redaction.ts'
import { overviewQueries, overviewSql } from '../../dev-server/overview/overview-queries.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { queryRows } from '../support/embedded-clickhouse.ts'
import { committedTotal, produceEvents } from '../support/produce-events.ts'
import { hourRollupMismatches } from '../support/stored-rows.ts'
import { waitFor } from '../support/wait-for.ts'
import { startWorkerFixture, type WorkerFixture } from '../support/worker-fixture.ts'

// Forgetting a caller (#24) on the real pipeline: Kafka, the registry, the worker and embedded
// ClickHouse. Three callers; caller A has three calls (a campaign call, a test, an inbound call) and
// a poisoned message in the DLQ. After `forget --phone` of A: none of A's rows in any table (read
// without FINAL: tombstones and older deliveries count), the audit row without the number, B's and
// C's rows exactly as before, the overview's queries still answer, the DLQ message reported with
// when retention removes it. Then A's call re-delivered and the topic replayed by a new consumer
// group: still nothing of A. The same for a number stored as its HMAC (phone=hmac), and a call of A
// stored while the erasure runs: reported as stored after the request.
const hmacKey = 'forget-test-hmac-key-of-32-characters!'
const auditKey = 'forget-test-audit-key-of-32-characters'
const numbers = { a: '+49 151 000 0001', b: '+491510000002', c: '+491510000003' }

function callerCalls(): Record<'a' | 'b' | 'c', ConversationCompleteEvent[]> {
  const events = generateConversations({
    count: 9,
    seed: 2424,
    historyItems: 6,
    campaignRate: 0.4,
    testRunRate: 0.3,
  })
  const own = (event: ConversationCompleteEvent, number: string) => {
    event.data.from_number = number
    event.data.to_number = '+4930123456'
    return event
  }
  return {
    // Formatted three ways: one caller all the same.
    a: [own(events[0]!, numbers.a), own(events[1]!, '+491510000001'), own(events[2]!, '+49-151-000-0001')],
    b: events.slice(3, 6).map((event) => own(event, numbers.b)),
    c: events.slice(6, 9).map((event) => own(event, numbers.c)),
  }
}

/** Rows per table of these conversations, every delivery and tombstone (no FINAL). */
async function rowsOf(client: ClickHouseClient, sessionIds: string[]): Promise<Record<string, number>> {
  const tables = await queryRows<{ name: string }>(
    client,
    `SELECT name FROM system.tables WHERE database = 'voice_analytics' AND engine LIKE '%MergeTree'
       AND name IN (SELECT table FROM system.columns WHERE database = 'voice_analytics' AND name = 'session_id')
     ORDER BY name`,
  )
  const counts: Record<string, number> = {}
  for (const { name } of tables) {
    const [row] = await queryRows<{ n: number }>(
      client,
      `SELECT count() AS n FROM voice_analytics.${name} WHERE session_id IN {ids:Array(String)}`,
      { ids: sessionIds },
    )
    counts[name] = Number(row!.n)
  }
  return counts
}

const target = { database: 'voice_analytics' }
const idsOf = (events: ConversationCompleteEvent[]) => events.map((event) => event.data.session_id)
const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0)

describe('forget a caller everywhere', () => {
  let fixture: WorkerFixture
  const calls = callerCalls()
  const request = (selector: ErasureSelector, extra: Partial<ForgetRequest> = {}): ForgetRequest => ({
    selector,
    phoneHmacKey: hmacKey,
    auditKey,
    command: 'forget test',
    ...extra,
  })
  const storedOf = (events: ConversationCompleteEvent[], wanted: number) =>
    waitFor(
      async () => (await rowsOf(fixture.clickhouse, idsOf(events))).conversations ?? 0,
      (stored) => stored >= wanted,
      120_000,
      'conversations stored',
    )

  beforeAll(async () => {
    fixture = await startWorkerFixture('forget', 2)
    await fixture.startWorker()
    await produceEvents(fixture.producer, fixture.codec, fixture.topic, [...calls.a, ...calls.b, ...calls.c])
    // A poisoned message of A's first call: not Avro, so the worker dead-letters it, key and bytes kept.
    await fixture.producer.sendBatch([
      {
        topic: fixture.topic,
        messages: [
          { key: calls.a[0]!.data.session_id, value: Buffer.from(`not avro ${calls.a[0]!.data.session_id}`) },
        ],
      },
    ])
    await storedOf([...calls.a, ...calls.b, ...calls.c], 9)
    await waitFor(
      () => committedTotal(fixture.kafka, fixture.groupId, fixture.topic),
      (committed) => committed >= 10,
      60_000,
      'every message committed (the poison dead-lettered)',
    )
  }, 240_000)
  afterAll(() => fixture?.stop(), 120_000)

  it("removes every row of the caller's conversations, records it without the number, and leaves the others", async () => {
    const othersBefore = await rowsOf(fixture.clickhouse, idsOf([...calls.b, ...calls.c]))
    const aBefore = await rowsOf(fixture.clickhouse, idsOf(calls.a))
    expect(aBefore.conversations).toBe(3)
    expect(aBefore.conversation_items).toBeGreaterThan(3)

    const dry = await forgetConversations(fixture.clickhouse, target, {
      ...request({ kind: 'phone', value: numbers.a }),
      dryRun: true,
    })
    expect(dry.sessionIds).toEqual(idsOf(calls.a).sort())
    expect(dry.found).toEqual(aBefore)
    expect(await rowsOf(fixture.clickhouse, idsOf(calls.a))).toEqual(aBefore)

    const report = await forgetConversations(
      fixture.clickhouse,
      target,
      request({ kind: 'phone', value: numbers.a }),
    )
    expect(report.verification).toBe('nothing left')
    expect(total(report.removed)).toBe(total(aBefore))
    expect(total(await rowsOf(fixture.clickhouse, idsOf(calls.a)))).toBe(0)
    expect(await rowsOf(fixture.clickhouse, idsOf([...calls.b, ...calls.c]))).toEqual(othersBefore)
    // The hour rollup holds no conversation, but its sums held A's turns: recomputed without them (and
    // the others' ended hours taken in by the worker's keeper, every WORKER_HOUR_ROLLUP_INTERVAL_MS).
    await waitFor(
      () => hourRollupMismatches(fixture.clickhouse, { endedHours: true }),
      (mismatches) => mismatches === 0,
      60_000,
      'the hour rollup equal to the minute rollup',
    )

    const [audit] = await erasureStatus(fixture.clickhouse, 'voice_analytics')
    expect(audit).toMatchObject({ selector_kind: 'phone', conversations: 3, verification: 'nothing left' })
    expect(audit!.verified_at).not.toBeNull()
    const auditText = JSON.stringify(
      await queryRows(fixture.clickhouse, 'SELECT * FROM voice_analytics.erasures'),
    )
    for (const digits of ['1510000001', '151 000 0001', calls.a[0]!.data.session_id])
      expect(auditText).not.toContain(digits)

    // The dashboards' queries still answer.
    for (const name of Object.keys(overviewQueries) as Array<keyof typeof overviewQueries>)
      await queryRows(fixture.clickhouse, overviewSql(name, new Date()))

    // The DLQ holds the poisoned message; Kafka cannot remove it alone: reported with its retention.
    const found = await searchTopics(
      fixture.kafka,
      [`${fixture.topic}.dlq`, topics.quarantine],
      messageNeedles({ kind: 'phone', value: numbers.a }, report.sessionIds, hmacKey),
    )
    expect(found.map((match) => match.topic)).toEqual([`${fixture.topic}.dlq`])
    expect(found[0]!.removedByMs).toBeGreaterThan(Date.now())
  })

  it('stores nothing again when the platform re-delivers a forgotten call, nor when the topic is replayed', async () => {
    await produceEvents(fixture.producer, fixture.codec, fixture.topic, [calls.a[1]!, calls.b[0]!])
    await waitFor(
      () => committedTotal(fixture.kafka, fixture.groupId, fixture.topic),
      (committed) => committed >= 12,
      60_000,
      'the re-delivery committed',
    )
    expect(total(await rowsOf(fixture.clickhouse, idsOf(calls.a)))).toBe(0)

    // `replay`: the worker's pipeline under a new consumer group, from the topic's start.
    const othersBefore = await rowsOf(fixture.clickhouse, idsOf([...calls.b, ...calls.c]))
    const replayGroup = `${fixture.groupId}-replay`
    await fixture.startWorker({ WORKER_GROUP_ID: replayGroup })
    await waitFor(
      () => committedTotal(fixture.kafka, replayGroup, fixture.topic),
      (committed) => committed >= 12,
      120_000,
      'the replay committed',
    )
    expect(total(await rowsOf(fixture.clickhouse, idsOf(calls.a)))).toBe(0)
    // B's and C's conversations stay one live row each.
    const live = await queryRows<{ n: number }>(
      fixture.clickhouse,
      'SELECT count() AS n FROM voice_analytics.conversations FINAL WHERE session_id IN {ids:Array(String)}',
      { ids: idsOf([...calls.b, ...calls.c]) },
    )
    expect(Number(live[0]!.n)).toBe(6)
    expect(
      (await rowsOf(fixture.clickhouse, idsOf([...calls.b, ...calls.c]))).conversations,
    ).toBeGreaterThanOrEqual(othersBefore.conversations!)
  }, 240_000)

  it('finds a number stored as its HMAC (phone=hmac) by the number itself', async () => {
    const [hashed] = generateConversations({ count: 1, seed: 2425, historyItems: 4 })
    hashed!.data.from_number = hashPhone('+49 151 000 0009', hmacKey)
    await produceEvents(fixture.producer, fixture.codec, fixture.topic, [hashed!])
    await storedOf([hashed!], 1)
    const report = await forgetConversations(
      fixture.clickhouse,
      target,
      request({ kind: 'phone', value: '+491510000009' }),
    )
    expect(report.sessionIds).toEqual([hashed!.data.session_id])
    expect(report.verification).toBe('nothing left')
    expect(total(await rowsOf(fixture.clickhouse, [hashed!.data.session_id]))).toBe(0)
  }, 180_000)

  it('reports a call of the caller stored while the erasure runs as stored after the request', async () => {
    const [first, next] = generateConversations({ count: 2, seed: 2426, historyItems: 4 })
    first!.data.from_number = '+491510000007'
    next!.data.from_number = '+491510000007'
    await produceEvents(fixture.producer, fixture.codec, fixture.topic, [first!])
    await storedOf([first!], 1)
    const report = await forgetConversations(
      fixture.clickhouse,
      target,
      request(
        { kind: 'phone', value: '+491510000007' },
        {
          // The caller's next call lands between the search and the removal.
          beforeRemoval: async () => {
            await produceEvents(fixture.producer, fixture.codec, fixture.topic, [next!])
            await storedOf([next!], 1)
          },
        },
      ),
    )
    expect(total(await rowsOf(fixture.clickhouse, [first!.data.session_id]))).toBe(0)
    expect((await rowsOf(fixture.clickhouse, [next!.data.session_id])).conversations).toBe(1)
    expect(report.remaining['conversations (stored after the request)']).toBe(1)
    expect(report.verification).toMatch(/1 conversation\(s\) of this caller stored after the request/)
    const [audit] = await erasureStatus(fixture.clickhouse, 'voice_analytics')
    expect(audit!.verification).toBe(report.verification)
  }, 180_000)
})
