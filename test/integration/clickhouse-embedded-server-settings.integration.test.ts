import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createClickHouse, embeddedMergeTreeSettings } from '../../core/clickhouse/clickhouse.ts'

// The embedded engine's MergeTree defaults (core/clickhouse/clickhouse.ts embeddedMergeTreeSettings)
// bound the worker's memory; chDB silently ignores them unless the engine starts with them.
describe('embedded ClickHouse engine configuration', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'va-chdb-settings-'))
  const settings = { CLICKHOUSE_DATA_DIR: dataDir, CLICKHOUSE_USER: 'default', CLICKHOUSE_PASSWORD: '' }
  const client = createClickHouse(settings)
  // The worker's second client on the same directory (item rows) must see the same engine.
  const itemsClient = createClickHouse(settings)
  afterAll(async () => {
    await itemsClient.close()
    await client.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('merges every MergeTree table with the vertical algorithm, for both clients', async () => {
    for (const target of [client, itemsClient]) {
      const result = await target.query({
        query: `SELECT name, value FROM system.merge_tree_settings
        WHERE name LIKE 'vertical_merge_algorithm_min_%_to_activate' ORDER BY name`,
        format: 'JSONEachRow',
      })
      expect(await result.json()).toEqual([
        { name: 'vertical_merge_algorithm_min_bytes_to_activate', value: '0' },
        { name: 'vertical_merge_algorithm_min_columns_to_activate', value: '1' },
        { name: 'vertical_merge_algorithm_min_rows_to_activate', value: '1' },
      ])
    }
  })

  it('merges in bigger steps (merge selector base 10, not 5), with every other MergeTree default, for both clients', async () => {
    const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1)
    const expected = Object.entries(embeddedMergeTreeSettings)
      .map(([name, value]) => ({ name, value: String(value) }))
      .sort(byName)
    for (const target of [client, itemsClient]) {
      const result = await target.query({
        query: `SELECT name, value FROM system.merge_tree_settings WHERE name IN {names:Array(String)}`,
        query_params: { names: [...expected.map(({ name }) => name), 'merge_selector_base'] },
        format: 'JSONEachRow',
      })
      const engine = (await result.json<{ name: string; value: string }>()).sort(byName)
      expect(engine).toEqual(expected)
      expect(engine.find(({ name }) => name === 'merge_selector_base')?.value).toBe('10')
    }
  })
})
