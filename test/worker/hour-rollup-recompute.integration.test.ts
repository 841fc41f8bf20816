import { describe, expect, it } from 'vitest'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { createMetricsRegistry } from '../../core/runtime/metrics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import type { TableRows } from '../../services/worker/transform/table-rows.ts'
import { mergeRows } from '../../services/worker/write/batch-rows.ts'
import { createConversationWrite } from '../../services/worker/write/conversation-write.ts'
import type { HourRollupKeeper } from '../../services/worker/write/hour-rollup-keeper.ts'
import { clickHouseHourRollupKeeper } from '../../services/worker/write/hour-rollup-keeper-start.ts'
import { database, migratedEmbeddedDatabase, queryRows } from '../support/embedded-clickhouse.ts'
import { hourRollupMismatches } from '../support/stored-rows.ts'
import { testLogger } from '../support/worker-settings.ts'

// The hour rollup (latency-hour-rollup.ts) kept by the worker's keeper (write/hour-rollup-keeper.ts),
// off the worker's write, on embedded ClickHouse: a pass takes in what the writes told it; a worker
// that died before its pass leaves nothing wrong for long, since the next worker's first pass scans
// every row's insert time; a re-delivery that moves a conversation to other hours leaves nothing of
// it in the hours it left; what no write told a running keeper waits for a scan; an hour that has
// not ended waits.
const engine = migratedEmbeddedDatabase('hour-rollup')

const events = generateConversations({ count: 12, seed: 31 })
const rowsOf = (list: typeof events, version: number, firstOffset: number): TableRows =>
  mergeRows(
    list.map((event, index) => ({
      rows: conversationRows(toAvroRecord(event, { source: 'prod', receivedAt: version }), {
        topic: 'hour-rollup',
        partition: 0,
        offset: firstOffset + index,
        timestampMs: version,
      }),
    })),
  )

/**
 * The worker's write of these rows (a fresh worker's: what it knows is loaded from ClickHouse),
 * telling `keeper` the hours it changed; without one, a worker that dies before its keeper's pass.
 */
function workerWrite(keeper?: HourRollupKeeper) {
  const config = {
    CLICKHOUSE_DATABASE: database,
    METRICS_AGENT_ALLOWLIST: '',
    METRICS_AGENT_LIMIT: 50,
    METRICS_LABEL_VALUE_LIMIT: 50,
    METRICS_LIVE_WINDOW_SECONDS: 3600,
  }
  return (rows: TableRows, token: string) =>
    createConversationWrite({
      clickhouse: engine.client,
      config,
      registry: createMetricsRegistry('worker-test'),
      logger: testLogger(),
      hourRollup: keeper,
    }).write(rows, token)
}

/** A worker's keeper; its passes are called here, not timed. */
const keeper = () => clickHouseHourRollupKeeper(engine.client, database, 60_000)

const hourTurns = async () =>
  Number(
    (
      await queryRows<{ turns: number }>(
        engine.client,
        `SELECT sum(e2e_latency_unflagged_count + e2e_latency_flagged_count) AS turns FROM ${database}.agent_latency_hour FINAL`,
      )
    )[0]!.turns,
  )

describe('the hour rollup kept off the write path', () => {
  const running = { keeper: undefined as ReturnType<typeof keeper> | undefined }

  it('is wrong right after a write and right after one pass', async () => {
    running.keeper = keeper()
    expect(await running.keeper.pass(), 'nothing stored yet').toBe(0)
    await workerWrite(running.keeper)(rowsOf(events.slice(0, 6), 1, 0), 'first')
    expect(await hourRollupMismatches(engine.client), 'the write did not recompute').toBeGreaterThan(0)
    expect(await running.keeper.pass()).toBeGreaterThan(0)
    expect(await hourRollupMismatches(engine.client)).toBe(0)
    expect(await hourTurns()).toBeGreaterThan(0)
  })

  it('a worker that died before its pass: the first pass of the next worker takes its write in', async () => {
    await workerWrite()(rowsOf(events.slice(6), 1, 6), 'second')
    expect(await hourRollupMismatches(engine.client)).toBeGreaterThan(0)
    // The worker that wrote it is gone; a new one starts.
    running.keeper = keeper()
    await running.keeper.pass()
    expect(await hourRollupMismatches(engine.client)).toBe(0)
  })

  it('keeps nothing of a conversation in the hours a newer delivery moved it out of', async () => {
    const before = await hourTurns()
    // Every time of three conversations six hours later (ISO times in fields named *_at).
    const later = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(later)
      if (value === null || typeof value !== 'object') return value
      return Object.fromEntries(
        Object.entries(value).map(([key, field]) => [
          key,
          key.endsWith('_at') && typeof field === 'string'
            ? new Date(Date.parse(field) + 6 * 3600_000).toISOString()
            : later(field),
        ]),
      )
    }
    const moved = events.slice(0, 3).map((event) => later(event) as (typeof events)[number])
    await workerWrite(running.keeper)(rowsOf(moved, 2, 100), 'moved')
    expect(await hourRollupMismatches(engine.client), 'the hours it left still count it').toBeGreaterThan(0)
    await running.keeper!.pass()
    expect(await hourRollupMismatches(engine.client)).toBe(0)
    expect(await hourTurns(), 'the same turns, in other hours').toBe(before)
    const hours = await queryRows<{ hour: string }>(
      engine.client,
      `SELECT DISTINCT toString(hour) AS hour FROM ${database}.agent_latency_hour FINAL ORDER BY hour`,
    )
    expect(hours.length).toBeGreaterThan(1)
  })

  it('what no write told it is left to a scan of the stamps, which a first pass makes of every row', async () => {
    // A minute row stamped long ago that no write told the running keeper of, as a write that landed
    // while no worker ran: left to the next worker's first pass.
    await engine.client.command({
      query: `INSERT INTO ${database}.agent_latency_minute
        SELECT * REPLACE ('agent-left-behind' AS agent_id, now64(3) - INTERVAL 1 DAY AS inserted_at)
        FROM ${database}.agent_latency_minute FINAL WHERE e2e_latency_unflagged_count > 0 LIMIT 1`,
    })
    expect(await hourRollupMismatches(engine.client)).toBeGreaterThan(0)
    await running.keeper!.pass()
    expect(await hourRollupMismatches(engine.client), 'not told, stamped before its scans').toBeGreaterThan(0)
    expect(await keeper().pass()).toBeGreaterThan(0)
    expect(await hourRollupMismatches(engine.client)).toBe(0)
  })

  it('holds an hour that has not ended (panels read it from the minute rollup until then)', async () => {
    const later = generateConversations({
      count: 3,
      seed: 77,
      from: Date.now() + 2 * 3600_000,
      spanHours: 0.5,
    })
    await workerWrite(running.keeper)(rowsOf(later, 1, 200), 'not ended')
    await running.keeper!.pass()
    expect(await hourRollupMismatches(engine.client, { endedHours: true })).toBe(0)
    expect(await hourRollupMismatches(engine.client), 'the hours not ended yet').toBeGreaterThan(0)
  })
})
