import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClickHouse } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { conversationStream } from '../../generator/conversation-generator.ts'
import { insertSettings, insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { freshTableRows, historyDates, liveDates } from '../bench-conversations.ts'

// Where a history write's time goes: the same number of conversations written live (one month)
// and over 120 months, one write each, per table, on a fresh embedded engine.
const size = Number(process.env.SIZE ?? 300)
const rounds = Number(process.env.ROUNDS ?? 3)
// EXTRA='{"optimize_on_insert":0}': settings tried on top of the worker's.
Object.assign(insertSettings, JSON.parse(process.env.EXTRA ?? '{}'))
const dir = mkdtempSync(join(tmpdir(), 'history-write-'))
const client = createClickHouse({ CLICKHOUSE_DATA_DIR: dir } as never)
const database = 'bench'
await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` })
await runMigrations(client, database)
// CODEC=LZ4: every column's codec replaced, to see what the ZSTD codecs cost a small part.
if (process.env.CODEC) {
  const result = await client.query({
    query: `SELECT table, name FROM system.columns WHERE database = '${database}' AND compression_codec != ''
      AND table IN (SELECT name FROM system.tables WHERE database = '${database}' AND engine LIKE '%MergeTree')`,
    format: 'JSONEachRow',
  })
  for (const { table, name } of await result.json<{ table: string; name: string }>())
    await client.command({
      query: `ALTER TABLE ${database}.${table} MODIFY COLUMN ${name} CODEC(${process.env.CODEC})`,
    })
}
// TABLE_SETTINGS='compress_marks=0': MergeTree settings tried on every table.
if (process.env.TABLE_SETTINGS) {
  const result = await client.query({
    query: `SELECT name FROM system.tables WHERE database = '${database}' AND engine LIKE '%MergeTree'`,
    format: 'JSONEachRow',
  })
  for (const { name } of await result.json<{ name: string }>())
    await client.command({
      query: `ALTER TABLE ${database}.${name} MODIFY SETTING ${process.env.TABLE_SETTINGS}`,
    })
}
const pools = {
  live: [...conversationStream({ count: size, seed: 1, historyItems: 40, ...liveDates() })],
  history: [...conversationStream({ count: size, seed: 1, historyItems: 40, ...historyDates })],
}
for (let round = 0; round < rounds; round++)
  for (const kind of ['live', 'history'] as const) {
    const rows = freshTableRows(pools[kind])
    const started = performance.now()
    const writes = await insertTableRows(client, database, rows, `${kind}-${round}`)
    const total = performance.now() - started
    console.log(
      JSON.stringify({
        kind,
        size,
        ms: Math.round(total),
        perConversationMs: +(total / size).toFixed(2),
        tables: Object.fromEntries(writes.map((w) => [w.table, Math.round(w.seconds * 1000)])),
      }),
    )
  }
await client.close()
rmSync(dir, { recursive: true, force: true })
