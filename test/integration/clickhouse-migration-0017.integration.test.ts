import { beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { dirtyLatencyHours, recomputeEveryLatencyHour } from '../../core/clickhouse/latency-hour-rollup.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { mergeRows } from '../../services/worker/write/batch-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import {
  databaseBeforeMigration,
  fitTodaysRows,
  migrateThrough,
  runMigrationAgain,
} from './migration-test-support.ts'

// Migration 0017 stamps the minute rollup's rows with their insert time, which the hour-rollup keeper
// reads: the rows stored before it get the epoch (their hours were recomputed when they were written:
// nothing to take in), the rows stored after it their insert time (their hours are to take in), and
// a second run changes nothing.
const rowsOf = (seed: number, version: number) =>
  mergeRows(
    generateConversations({ count: 8, seed }).map((event, offset) => ({
      rows: conversationRows(toAvroRecord(event, { source: 'prod', receivedAt: version }), {
        topic: 't',
        partition: 0,
        offset,
        timestampMs: version,
      }),
    })),
  )

describe('migration 0017 on an existing database', () => {
  const opened = databaseBeforeMigration(17)
  let client: ClickHouseClient
  const stamps = () =>
    queryRows<{ epoch: number; later: number }>(
      client,
      `SELECT countIf(inserted_at = toDateTime64(0, 3, 'UTC')) AS epoch,
          countIf(inserted_at > now64(3) - INTERVAL 1 HOUR) AS later
        FROM ${database}.agent_latency_minute`,
    )

  beforeAll(async () => {
    client = opened.client
    await fitTodaysRows(client)
    await insertTableRows(client, database, rowsOf(17, 1), 'test-0017-base')
    // As the worker before 0017 did after each write.
    await recomputeEveryLatencyHour(client, database)
  })

  it('stamps the rows stored before with the epoch: no hour to take in', async () => {
    await migrateThrough(client, 17)
    const [before] = await stamps()
    expect(Number(before!.epoch)).toBeGreaterThan(0)
    expect(Number(before!.later)).toBe(0)
    expect(await dirtyLatencyHours(client, database, 0)).toEqual([])
  })

  it('stamps the rows stored after with their insert time: their hours are to take in', async () => {
    await insertTableRows(client, database, rowsOf(1717, 2), 'test-0017-after')
    const [after] = await stamps()
    expect(Number(after!.later)).toBeGreaterThan(0)
    expect((await dirtyLatencyHours(client, database, 0)).length).toBeGreaterThan(0)
  })

  it('can run again without changing a stamp', async () => {
    const before = await stamps()
    await runMigrationAgain(client, 17)
    expect(await stamps()).toEqual(before)
  })
})
