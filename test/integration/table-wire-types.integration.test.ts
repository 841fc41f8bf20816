import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { tableNames, tableNativeColumns } from '../../services/worker/transform/table-rows.ts'
import { database, embeddedClickHouse, queryRows, tempDataDir } from '../support/embedded-clickhouse.ts'

// table-rows.ts declares each table's columns once, with the ClickHouse type each is sent as; the
// tables themselves come from the migrations. They must agree: every declared column exists with
// that type (LowCardinality aside, which ClickHouse converts on input), and every column the worker
// does not send has a default of its own.
const withoutLowCardinality = (type: string) => type.replaceAll(/LowCardinality\((.*?\)?)\)/g, '$1')

describe('the wire types of table-rows.ts against the tables of the migrations', () => {
  const data = tempDataDir('wire-types')
  let client: ClickHouseClient

  beforeAll(async () => {
    client = embeddedClickHouse(data.dir)
    await runMigrations(client, database)
  })

  afterAll(async () => {
    await client?.close()
    data.remove()
  })

  it('reads LowCardinality types as their plain type', () => {
    expect(withoutLowCardinality('LowCardinality(Nullable(String))')).toBe('Nullable(String)')
    expect(withoutLowCardinality('Array(LowCardinality(String))')).toBe('Array(String)')
    expect(withoutLowCardinality("DateTime64(3, 'UTC')")).toBe("DateTime64(3, 'UTC')")
  })

  it('declares every column of every table the worker writes with the type the table holds', async () => {
    for (const table of tableNames) {
      const stored = await queryRows<{ name: string; type: string; default_kind: string }>(
        client,
        `SELECT name, type, default_kind FROM system.columns WHERE database = '${database}' AND table = '${table}'`,
      )
      const declared = new Map(tableNativeColumns[table].map((column) => [column.name, column.type]))
      const storedTypes = Object.fromEntries(
        stored.map((column) => [column.name, withoutLowCardinality(column.type)]),
      )
      expect(
        Object.fromEntries([...declared.keys()].map((name) => [name, storedTypes[name]])),
        table,
      ).toEqual(Object.fromEntries(declared))
      expect(
        [...declared.keys()].filter((name) => !stored.some((column) => column.name === name)),
        table,
      ).toEqual([])
      expect(
        stored
          .filter((column) => !declared.has(column.name) && column.default_kind === '')
          .map((column) => column.name),
        table,
      ).toEqual([])
    }
  })
})
