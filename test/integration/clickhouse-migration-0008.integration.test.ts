import { beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../services/core/clickhouse.ts'
import { database, queryRows } from '../worker/worker-test-support.ts'
import { databaseBeforeMigration, migrateThrough, runMigrationAgain } from './migration-test-support.ts'

// Migration 0008 keeps a write's conversation_items part compact up to 32 MB of uncompressed data
// (#12): a part of a dozen files instead of two or more per column stream, the insert's largest
// fixed cost. A write of ~12 MB made a wide part before it and makes a compact one after; the rows
// stored before it stay readable and merge with the new ones; running it again does no harm.
describe('migration 0008 on an existing database', () => {
  const opened = databaseBeforeMigration(8)
  let client: ClickHouseClient
  // 12,000 item rows of ~1 KB of content: ~12 MB uncompressed in one insert, more than the 10 MB
  // below which ClickHouse writes a compact part by default.
  const write = (name: string) =>
    client.command({
      query: `INSERT INTO ${database}.conversation_items (session_id, item_index, event_time, agent_id, content, version)
        SETTINGS insert_deduplication_token = 'test-0008-${name}'
        SELECT concat('${name}-', toString(intDiv(number, 40))), number % 40,
          toDateTime64('2026-04-01 08:00:00', 3) + intDiv(number, 40), 'agent-1', repeat('x', 1000), 1
        FROM numbers(12000)`,
    })
  const partTypes = () =>
    queryRows<{ session: string; part_type: string }>(
      client,
      `SELECT splitByChar('-', rows.session)[1] AS session, parts.part_type AS part_type
        FROM (SELECT _part AS name, any(session_id) AS session FROM ${database}.conversation_items GROUP BY _part) AS rows
        JOIN (SELECT name, part_type FROM system.parts
          WHERE database = '${database}' AND table = 'conversation_items' AND active) AS parts USING name
        ORDER BY session`,
    )

  beforeAll(async () => {
    client = opened.client
    await client.command({ query: `SYSTEM STOP MERGES ${database}.conversation_items` })
    await write('before')
    await migrateThrough(client, 8)
    await write('after')
  })

  it('writes a part of ~12 MB of items compact, where it was wide before', async () => {
    expect(await partTypes()).toEqual([
      { session: 'after', part_type: 'Compact' },
      { session: 'before', part_type: 'Wide' },
    ])
  })

  it('keeps the rows stored before it and merges them with the new ones', async () => {
    await client.command({ query: `SYSTEM START MERGES ${database}.conversation_items` })
    await client.command({ query: `OPTIMIZE TABLE ${database}.conversation_items FINAL` })
    const [counts] = await queryRows<{ rows: number; parts: number; contents: number }>(
      client,
      `SELECT count() AS rows, uniqExact(_part) AS parts, uniqExact(content) AS contents
        FROM ${database}.conversation_items FINAL`,
    )
    expect(counts).toEqual({ rows: 24000, parts: 1, contents: 1 })
  })

  it('can run its statements again without harm', async () => {
    await runMigrationAgain(client, 8)
    const [table] = await queryRows<{ engine_full: string }>(
      client,
      `SELECT engine_full FROM system.tables WHERE database = '${database}' AND name = 'conversation_items'`,
    )
    expect(table?.engine_full).toContain('min_bytes_for_wide_part = 33554432')
  })
})
