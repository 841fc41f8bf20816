import { spawnSync } from 'node:child_process'
import { readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertFileDir } from '../../core/clickhouse/chdb-insert-files.ts'
import { type ClickHouseClient, insertNativeBlock } from '../../core/clickhouse/clickhouse.ts'
import { classifyClickHouseError } from '../../core/clickhouse/clickhouse-errors.ts'
import { type NativeColumn, nativeBlockEncoder } from '../../core/clickhouse/clickhouse-native-format.ts'
import { embeddedClickHouse, queryRows, tempDataDir } from '../support/embedded-clickhouse.ts'

// The Native route into embedded chDB (INSERT ... FROM INFILE, clickhouse.ts): every wire type the
// tables use lands as sent, LowCardinality columns included (ClickHouse converts on input); a block
// written twice under one deduplication token is stored once, in the table and behind a materialized
// view; a column some rows leave out gets its DEFAULT expression there; the insert's settings do not
// stay with the session; the block's file is gone afterwards,
// whether the insert worked or not; an engine error keeps its code for the worker's classification.
const database = 'native_insert'
const columns: NativeColumn[] = [
  { name: 'id', type: 'UInt32' },
  { name: 'text', type: 'String' },
  { name: 'label', type: 'String' },
  { name: 'maybe_label', type: 'Nullable(String)' },
  { name: 'maybe_text', type: 'Nullable(String)' },
  { name: 'flag', type: 'Nullable(Bool)' },
  { name: 'small', type: 'UInt8' },
  { name: 'big', type: 'UInt64' },
  { name: 'maybe_index', type: 'Nullable(UInt32)' },
  { name: 'value', type: 'Float64' },
  { name: 'maybe_value', type: 'Nullable(Float64)' },
  { name: 'at', type: "DateTime64(3, 'UTC')" },
  { name: 'maybe_at', type: "Nullable(DateTime64(3, 'UTC'))" },
  { name: 'minute', type: "DateTime('UTC')" },
  { name: 'tags', type: 'Array(String)' },
  { name: 'flags', type: 'Array(String)' },
  { name: 'values', type: 'Array(Float64)' },
  { name: 'params', type: 'Map(String, String)' },
]
const tableSql = `CREATE TABLE ${database}.every_type (
    id UInt32, text String, label LowCardinality(String), maybe_label LowCardinality(Nullable(String)),
    maybe_text Nullable(String), flag Nullable(Bool), small UInt8, big UInt64, maybe_index Nullable(UInt32),
    value Float64, maybe_value Nullable(Float64), at DateTime64(3, 'UTC'),
    maybe_at Nullable(DateTime64(3, 'UTC')), minute DateTime('UTC'), tags Array(String),
    flags Array(LowCardinality(String)), values Array(Float64), params Map(String, String)
  ) ENGINE = ReplacingMergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100`
const first = Date.UTC(1900, 0, 1)
const last = Date.UTC(2300, 0, 1) - 1
const rows = [
  {
    id: 1,
    text: 'Grüße, 東京 🎧 \u0000 "quoted" \\ back',
    label: 'agent-á',
    maybe_label: null,
    maybe_text: null,
    flag: null,
    small: 0,
    big: Number.MAX_SAFE_INTEGER,
    maybe_index: null,
    value: -0,
    maybe_value: null,
    at: first,
    maybe_at: null,
    minute: 0,
    tags: [],
    flags: [],
    values: [],
    params: {},
  },
  {
    id: 2,
    text: '',
    label: '',
    maybe_label: 'ünïcode',
    maybe_text: 'x'.repeat(300),
    flag: true,
    small: 255,
    big: 0,
    maybe_index: 4_294_967_295,
    value: 0.1 + 0.2,
    maybe_value: -0,
    at: last,
    maybe_at: last,
    minute: 1_750_000_020,
    tags: ['a', '', 'ß'],
    flags: ['negative_delay'],
    values: [1e-300, -1.5, 1e21],
    params: { utm_source: 'mail', ключ: 'значение' },
  },
]
const encode = nativeBlockEncoder('every_type', columns)
const insertFiles = () =>
  readdirSync(insertFileDir).filter((name) => name.startsWith(`va-insert-${process.pid}-`))

describe('Native blocks into embedded chDB', () => {
  const data = tempDataDir('native-insert')
  let client: ClickHouseClient

  beforeAll(async () => {
    client = embeddedClickHouse(data.dir)
    await client.command({ query: `CREATE DATABASE ${database}` })
    await client.command({ query: tableSql })
    await client.command({
      query: `CREATE TABLE ${database}.id_counts (id UInt32, n UInt64) ENGINE = SummingMergeTree ORDER BY id
        SETTINGS non_replicated_deduplication_window = 100`,
    })
    await client.command({
      query: `CREATE MATERIALIZED VIEW ${database}.id_counts_mv TO ${database}.id_counts AS
        SELECT id, count() AS n FROM ${database}.every_type GROUP BY id`,
    })
  })

  afterAll(async () => {
    await client?.close()
    data.remove()
  })

  const insert = (token: string, block = encode(rows)) =>
    insertNativeBlock(client, {
      table: `${database}.every_type`,
      columns: columns.map((column) => column.name),
      block,
      settings: { deduplicate_blocks_in_dependent_materialized_views: 1, insert_deduplication_token: token },
    })

  it('stores every value as sent: unicode, nulls, empty arrays, -0, UInt64 and DateTime64 range ends', async () => {
    await insert('every-type-1')
    const stored = await queryRows(
      client,
      `SELECT id, text, label, maybe_label, maybe_text, flag, small, toString(big) AS big, maybe_index,
          reinterpretAsUInt64(value) AS value_bits, value, maybe_value, toUnixTimestamp64Milli(at) AS at,
          toUnixTimestamp64Milli(maybe_at) AS maybe_at, toUnixTimestamp(minute) AS minute, tags, flags,
          values, params, toTypeName(label) AS label_type
        FROM ${database}.every_type ORDER BY id`,
    )
    expect(stored).toEqual(
      rows.map((row) => ({
        ...row,
        big: String(row.big),
        value_bits: Number(new BigUint64Array(new Float64Array([row.value]).buffer)[0]),
        label_type: 'LowCardinality(String)',
      })),
    )
    expect(Object.is(stored[0]!.value, -0)).toBe(true)
    expect(Object.is(stored[1]!.maybe_value, -0)).toBe(true)
  })

  it('stores a block written again under the same token once, in the table and behind its view', async () => {
    await insert('every-type-1')
    await insert('every-type-1')
    const count = async (query: string) => Number((await queryRows<{ n: number }>(client, query))[0]!.n)
    expect(await count(`SELECT count() AS n FROM ${database}.every_type`)).toBe(2)
    expect(await count(`SELECT sum(n) AS n FROM ${database}.id_counts`)).toBe(2)
    await insert('every-type-2')
    expect(await count(`SELECT count() AS n FROM ${database}.every_type`)).toBe(4)
    expect(await count(`SELECT sum(n) AS n FROM ${database}.id_counts`)).toBe(4)
  })

  it('leaves no setting of the insert with the session', async () => {
    await insertNativeBlock(client, {
      table: `${database}.every_type`,
      columns: columns.map((column) => column.name),
      block: encode(rows),
      settings: { insert_deduplication_token: 'every-type-3', max_insert_block_size: 54_321 },
    })
    const [settings] = await queryRows<Record<string, string>>(
      client,
      `SELECT getSetting('insert_deduplication_token') AS token,
        toString(getSetting('max_insert_block_size')) AS block_size,
        (SELECT default FROM system.settings WHERE name = 'max_insert_block_size') AS default_block_size`,
    )
    expect(settings!.token).toBe('')
    expect(settings!.block_size).toBe(settings!.default_block_size)
    expect(settings!.block_size).not.toBe('54321')
  })

  it('removes the block file after the insert, also when the engine refuses it', async () => {
    expect(insertFiles()).toEqual([])
    await insert('every-type-4')
    expect(insertFiles()).toEqual([])
    const cut = encode(rows)
    await expect(insert('every-type-5', cut.subarray(0, cut.length - 5))).rejects.toThrow(/Native/)
    expect(insertFiles()).toEqual([])
  })

  it('removes, when an embedded client is made, the insert files of processes that were killed', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid!
    const orphan = `va-insert-${gone}-0f0f0f0f-0000-4000-8000-000000000000.native`
    const ours = `va-insert-${process.pid}-0f0f0f0f-0000-4000-8000-000000000001.native`
    for (const name of [orphan, ours]) writeFileSync(join(insertFileDir, name), 'block', { mode: 0o600 })
    await embeddedClickHouse(data.dir).close()
    const left = readdirSync(insertFileDir)
    expect(left).not.toContain(orphan)
    expect(left).toContain(ours)
    rmSync(join(insertFileDir, ours))
  })

  it('fills a column some rows leave out with its DEFAULT expression, as for an omitted column', async () => {
    await client.command({
      query: `CREATE TABLE ${database}.partial (id UInt32, source LowCardinality(String) DEFAULT if(id > 1, 'big', 'small'),
        n UInt32 DEFAULT id * 7, tags Array(String), note Nullable(String)) ENGINE = MergeTree ORDER BY id`,
    })
    const partialColumns: NativeColumn[] = [
      { name: 'id', type: 'UInt32' },
      { name: 'source', type: 'String' },
      { name: 'n', type: 'UInt32' },
      { name: 'tags', type: 'Array(String)' },
      { name: 'note', type: 'Nullable(String)' },
    ]
    await insertNativeBlock(client, {
      table: `${database}.partial`,
      columns: partialColumns.map((column) => column.name),
      block: nativeBlockEncoder(
        'partial',
        partialColumns,
      )([{ id: 1 }, { id: 2, source: 'given', n: 5, tags: ['t'], note: 'x' }, { id: 3 }]),
      settings: { input_format_null_as_default: 1, insert_deduplication_token: 'partial' },
    })
    expect(await queryRows(client, `SELECT * FROM ${database}.partial ORDER BY id`)).toEqual([
      { id: 1, source: 'small', n: 7, tags: [], note: null },
      { id: 2, source: 'given', n: 5, tags: ['t'], note: 'x' },
      { id: 3, source: 'big', n: 21, tags: [], note: null },
    ])
  })

  it('keeps the engine error code for the worker to classify (a missing table: transient, operator)', async () => {
    const failure = await insertNativeBlock(client, {
      table: `${database}.no_such_table`,
      columns: ['id'],
      block: nativeBlockEncoder('x', [{ name: 'id', type: 'UInt32' }])([{ id: 1 }]),
      settings: { insert_deduplication_token: 'missing' },
    }).catch((error: unknown) => error)
    expect(classifyClickHouseError(failure)).toEqual({ class: 'transient', code: 60, needsOperator: true })
  })
})
