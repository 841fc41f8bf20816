import { beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import { databaseBeforeMigration, migrateThrough, runMigrationAgain } from './migration-test-support.ts'

// Migration 0007 makes conversations' session_id bloom filter selective enough for the worker's
// newest-delivery lookup (#12): a write's hundreds of session ids that are not stored must let the
// lookup skip the table's granules instead of reading them all. A database made by 0001-0006 keeps
// its rows and finds them as before; running the statements again does no harm.
describe('migration 0007 on an existing database', () => {
  const opened = databaseBeforeMigration(7)
  let client: ClickHouseClient
  // Parts of 200 conversations of several agents and times, as the worker's writes leave them: the
  // sorting key (agent_id, event_time, session_id) cannot exclude any of them for a set of ids.
  const parts = 5
  const insertPart = (part: number) =>
    client.command({
      query: `INSERT INTO ${database}.conversations (session_id, event_time, event, agent_id, version)
        SETTINGS insert_deduplication_token = 'test-0007-${part}'
        SELECT concat('stored-${part}-', toString(number)), toDateTime64('2026-04-01 08:00:00', 3) + number,
          'call_ended', concat('agent-', toString(number % 7)), 1
        FROM numbers(200)`,
    })
  const stored = ['stored-0-0', 'stored-2-117', 'stored-4-199']

  // The skip index's granules a lookup as the worker's reads: "read/total" from EXPLAIN indexes.
  const granulesRead = async (ids: string[]) => {
    const result = await client.query({
      query: `EXPLAIN indexes = 1 SELECT session_id FROM ${database}.conversations FINAL
        WHERE session_id IN {ids:Array(String)}`,
      query_params: { ids },
      format: 'TabSeparatedRaw',
    })
    const plan = await result.text()
    const skip = plan.slice(plan.indexOf('Name: session_id_index'))
    return /Granules: (\d+\/\d+)/.exec(skip)?.[1]
  }

  beforeAll(async () => {
    client = opened.client
    for (let part = 0; part < parts; part++) await insertPart(part)
    await migrateThrough(client, 7)
  })

  // Fixed ids: the bloom filter's answer for them is the same on every run.
  const absent = Array.from({ length: 500 }, (_, index) => `absent-${index}`)

  it('lets a lookup of 500 session ids that are not stored skip the granules (all 5 read before it)', async () => {
    expect(await granulesRead(absent)).toBe('0/5')
  })

  it('still finds the conversations stored before it, beside ids that are not stored', async () => {
    const ids = [...stored, ...absent]
    const found = await queryRows<{ session_id: string }>(
      client,
      `SELECT session_id FROM ${database}.conversations FINAL
        WHERE session_id IN (${ids.map((id) => `'${id}'`).join(', ')}) ORDER BY session_id`,
    )
    expect(found.map((row) => row.session_id)).toEqual(stored)
  })

  it('can run its statements again without harm', async () => {
    await runMigrationAgain(client, 7)
    const indexes = await queryRows<{ type_full: string; granularity: number }>(
      client,
      `SELECT type_full, granularity FROM system.data_skipping_indices
        WHERE database = '${database}' AND table = 'conversations' AND name = 'session_id_index'`,
    )
    expect(indexes).toEqual([{ type_full: 'bloom_filter(0.0001)', granularity: 1 }])
    expect(await granulesRead(absent)).toBe('0/5')
  })
})
