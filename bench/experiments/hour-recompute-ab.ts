import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClickHouse } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import {
  type AgentHour,
  agentHours,
  recomputeLatencyHours,
  recomputeParams,
  recomputeStatement,
} from '../../core/clickhouse/latency-hour-rollup.ts'
import { conversationStream } from '../../generator/conversation-generator.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { freshTableRows, historyDates } from '../bench-conversations.ts'

// What the hour-rollup keeper's recompute costs a history (#30): TOTAL conversations over ten years
// of months written as the worker writes them (WRITE per write), then the agent-hours of PASS
// conversations recomputed, as one keeper pass would: in the statements of today (chunks of 500
// hours), in one statement, and grouped by month. In turn, ROUNDS each.
const total = Number(process.env.TOTAL ?? 4000)
const perWrite = Number(process.env.WRITE ?? 300)
const perPass = Number(process.env.PASS ?? 1000)
const rounds = Number(process.env.ROUNDS ?? 3)
const dir = mkdtempSync(join(tmpdir(), 'hour-recompute-'))
const client = createClickHouse({ CLICKHOUSE_DATA_DIR: dir } as never)
const database = 'bench'
await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` })
await runMigrations(client, database)
const events = [...conversationStream({ count: total, seed: 7, historyItems: 40, ...historyDates })]
const hoursOfWrite: AgentHour[][] = []
for (let start = 0; start < total; start += perWrite) {
  const rows = freshTableRows(events.slice(start, start + perWrite))
  await insertTableRows(client, database, rows, `w${start}`)
  hoursOfWrite.push(agentHours(rows.agent_latency_feed))
}
const everyHour = hoursOfWrite.flat()
console.log(JSON.stringify({ total, writes: hoursOfWrite.length, hours: everyHour.length }))

const monthOf = (hour: AgentHour) => new Date(hour.hour * 1000).toISOString().slice(0, 7)
const variants = {
  chunks: (hours: AgentHour[]) => recomputeLatencyHours(client, database, hours),
  oneStatement: (hours: AgentHour[]) =>
    client.command({
      query: recomputeStatement(database),
      query_params: recomputeParams(hours),
      clickhouse_settings: { throw_on_max_partitions_per_insert_block: 0 },
    }),
  byMonth: async (hours: AgentHour[]) => {
    const months = new Map<string, AgentHour[]>()
    for (const hour of hours) months.set(monthOf(hour), [...(months.get(monthOf(hour)) ?? []), hour])
    for (const group of months.values()) await recomputeLatencyHours(client, database, group)
  },
}
const perPassHours = Math.round((everyHour.length * perPass) / total)
for (let round = 0; round < rounds; round++)
  for (const [index, name] of (Object.keys(variants) as Array<keyof typeof variants>).entries()) {
    const offset = ((round * 3 + index) * perPassHours) % everyHour.length
    const hours = everyHour.slice(offset, offset + perPassHours)
    const started = performance.now()
    const cpu = process.cpuUsage()
    await variants[name](hours)
    const used = process.cpuUsage(cpu)
    console.log(
      JSON.stringify({
        name,
        hours: hours.length,
        ms: Math.round(performance.now() - started),
        cpuMs: Math.round((used.user + used.system) / 1000),
      }),
    )
  }
await client.close()
rmSync(dir, { recursive: true, force: true })
