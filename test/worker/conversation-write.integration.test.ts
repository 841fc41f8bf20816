import { beforeAll, describe, expect, it } from 'vitest'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { forgetConversations } from '../../core/privacy/erasure/forget-conversations.ts'
import { createMetricsRegistry } from '../../core/runtime/metrics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import type { TableRows } from '../../services/worker/transform/table-rows.ts'
import { mergeRows } from '../../services/worker/write/batch-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { createConversationWrite } from '../../services/worker/write/conversation-write.ts'
import { clickHouseHourRollupKeeper } from '../../services/worker/write/hour-rollup-keeper-start.ts'
import { database, migratedEmbeddedDatabase, queryRows } from '../support/embedded-clickhouse.ts'
import { hourRollupMismatches } from '../support/stored-rows.ts'
import { testLogger } from '../support/worker-settings.ts'

// The worker's write (write/conversation-write.ts) on embedded ClickHouse, watched at the client: what
// it asks ClickHouse before its inserts. First deliveries of conversations it does not know ask
// nothing (after the one load of what it knows); re-deliveries are looked up and planned; a
// conversation `forget` erased is never stored again, by this worker or by one started after.
const engine = migratedEmbeddedDatabase('conversation-write')

const events = generateConversations({ count: 30, seed: 4711, historyItems: 6 })
let nextOffset = 0
const rowsOf = (list: typeof events, version: number): TableRows =>
  mergeRows(
    list.map((event) => ({
      rows: conversationRows(toAvroRecord(event, { source: 'prod', receivedAt: version }), {
        topic: 'conversation-write',
        partition: 0,
        offset: nextOffset++,
        timestampMs: version,
      }),
    })),
  )

/** The statements the write sent, in order: 'query' and 'command' through the client, 'insert' for its inserts. */
type Call = 'query' | 'command' | 'insert'

/** A worker's write (a fresh one: a restarted worker) whose calls to ClickHouse are noted in `calls`. */
function watchedWrite(calls: Call[]) {
  const watched = new Proxy(engine.client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (property !== 'query' && property !== 'command') return value
      return (...args: unknown[]) => {
        calls.push(property)
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
  return createConversationWrite({
    clickhouse: watched,
    config: {
      CLICKHOUSE_DATABASE: database,
      METRICS_AGENT_ALLOWLIST: '',
      METRICS_AGENT_LIMIT: 50,
      METRICS_LABEL_VALUE_LIMIT: 50,
      METRICS_LIVE_WINDOW_SECONDS: 3600,
    },
    registry: createMetricsRegistry('worker-test'),
    logger: testLogger(),
    insert: async (_client, ...rest) => {
      calls.push('insert')
      return insertTableRows(engine.client, ...rest)
    },
  })
}

/** The hour rollup's mismatches once a keeper took in what was written. */
async function hourRollupAfterPass(): Promise<number> {
  await clickHouseHourRollupKeeper(engine.client, database, 60_000).pass()
  return hourRollupMismatches(engine.client)
}

/** What a write asked before its first insert. */
const beforeInsert = (calls: Call[]) => calls.slice(0, calls.indexOf('insert'))

const stored = async (sessions: string[]) =>
  (
    await queryRows<{ session_id: string; version: string }>(
      engine.client,
      `SELECT session_id, toString(version) AS version FROM ${database}.conversations FINAL
        WHERE session_id IN {ids:Array(String)} ORDER BY session_id`,
      { ids: sessions },
    )
  ).map((row) => `${row.session_id}@${row.version}`)

const ids = (list: typeof events) => list.map((event) => event.data.session_id)

describe('the worker write', () => {
  const calls: Call[] = []
  let write: ReturnType<typeof watchedWrite>
  beforeAll(() => {
    write = watchedWrite(calls)
  })

  it('asks ClickHouse nothing before the inserts of first deliveries (after loading what it knows, once)', async () => {
    await write.write(rowsOf(events.slice(0, 10), 1), 'first')
    expect(calls, 'the load of the known conversations, then the inserts').toEqual(['query', 'insert'])
    calls.length = 0
    await write.write(rowsOf(events.slice(10, 20), 1), 'second')
    expect(calls, 'nothing but the inserts').toEqual(['insert'])
    expect(await stored(ids(events.slice(0, 20)))).toHaveLength(20)
    expect(await hourRollupAfterPass()).toBe(0)
  })

  it('looks up re-deliveries, and stores only the newest delivery', async () => {
    calls.length = 0
    const redelivered = events.slice(0, 2)
    await write.write(rowsOf([...redelivered, ...events.slice(20, 23)], 2), 'third')
    expect(beforeInsert(calls).length, 'the forgotten and stored lookups').toBeGreaterThanOrEqual(2)
    expect(await stored(ids(redelivered))).toEqual(
      ids(redelivered)
        .sort()
        .map((id) => `${id}@2`),
    )
    expect(await stored(ids(events.slice(0, 23)))).toHaveLength(23)
    expect(await hourRollupAfterPass()).toBe(0)
  })

  it('never stores a forgotten conversation again: in this worker once told, nor in one started after', async () => {
    const [erased, alsoErased] = events.slice(3, 5)
    for (const event of [erased!, alsoErased!]) {
      const report = await forgetConversations(
        engine.client,
        { database },
        {
          selector: { kind: 'session_id', value: event.data.session_id },
          phoneHmacKey: undefined,
          auditKey: 'test-audit-key',
          command: 'conversation-write test',
        },
      )
      expect(report.sessionIds).toEqual([event.data.session_id])
    }
    write.forgotten([erased!.data.session_id])
    await write.write(rowsOf([erased!], 3), 'after forget')
    await watchedWrite([]).write(rowsOf([alsoErased!], 3), 'after forget, restarted')
    expect(await stored(ids([erased!, alsoErased!]))).toEqual([])
    expect(await hourRollupAfterPass()).toBe(0)
  })
})
