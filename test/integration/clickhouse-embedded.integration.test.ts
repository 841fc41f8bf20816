import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createClickHouse } from '../../core/clickhouse/clickhouse.ts'

describe('embedded ClickHouse (chDB) through @clickhouse/client', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'va-chdb-'))
  const client = createClickHouse({
    CLICKHOUSE_DATA_DIR: dataDir,
    CLICKHOUSE_USER: 'default',
    CLICKHOUSE_PASSWORD: '',
  })
  afterAll(async () => {
    await client.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('creates a table, writes rows and reads them back with millisecond timestamps', async () => {
    await client.command({ query: 'CREATE DATABASE IF NOT EXISTS smoke' })
    await client.command({
      query: `CREATE TABLE smoke.turns (session_id String, at DateTime64(3, 'UTC'), e2e_latency Float64,
        labels Map(String, String)) ENGINE = MergeTree ORDER BY (session_id, at)`,
    })
    const rows = [
      { session_id: 'a', at: '2026-03-01 10:00:00.123', e2e_latency: 0.1 + 0.2, labels: { k: 'v' } },
      { session_id: 'b', at: '2026-03-01 10:00:01.999', e2e_latency: 1.5, labels: {} },
    ]
    await client.insert({ table: 'smoke.turns', values: rows, format: 'JSONEachRow' })
    const result = await client.query({
      query:
        'SELECT session_id, toString(at) AS at, e2e_latency, labels FROM smoke.turns ORDER BY session_id',
      format: 'JSONEachRow',
    })
    expect(await result.json()).toEqual(rows)
  })

  it('runs ClickHouse 25+ and counts what it wrote', async () => {
    const version = await client.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' })
    const [row] = (await version.json()) as Array<{ v: string }>
    expect(row?.v).toMatch(/^2[5-9]\.\d+/)
    const count = await client.query({ query: 'SELECT count() AS n FROM smoke.turns', format: 'JSONEachRow' })
    expect(await count.json()).toEqual([{ n: '2' }])
  })
})
