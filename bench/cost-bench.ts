import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClickHouse } from '../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../core/clickhouse/clickhouse-migrations.ts'
import { parsePriceCsv } from '../core/pricing/price-csv.ts'
import { addPrices, readPrices } from '../core/pricing/price-store.ts'
import { database, fillWithGeneratedConversations } from '../test/observability/generated-clickhouse.ts'

// The cost-per-campaign query over 30 days of 1,000,000 conversations (#25: under 1 s on this
// machine), beside the same query without cost, and the cost computed two ways: the view's range
// dictionary (price_lookup) and ASOF JOINs on the prices table, to choose between them by
// measurement. Data: BENCH_SEED_CONVERSATIONS (20,000) generated over 30 days and stored by the
// worker's own transform and insert, then scaled inside ClickHouse to BENCH_CONVERSATIONS
// (1,000,000) by INSERT … SELECT with new session ids. Prices: docs/prices.example.csv. The data
// directory (BENCH_DATA_DIR) is kept and reused when it already holds the conversations.
// Each query runs BENCH_RUNS (3) times, alternating; the median is printed, with `uptime`.
const target = Number(process.env.BENCH_CONVERSATIONS ?? 1_000_000)
const seedCount = Number(process.env.BENCH_SEED_CONVERSATIONS ?? 20_000)
const runs = Number(process.env.BENCH_RUNS ?? 3)
const dataDir = process.env.BENCH_DATA_DIR ?? join(tmpdir(), `va-cost-bench-${target}`)
mkdirSync(dataDir, { recursive: true })

const client = createClickHouse({
  CLICKHOUSE_DATA_DIR: dataDir,
  CLICKHOUSE_USER: 'default',
  CLICKHOUSE_PASSWORD: '',
})
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim()
async function scalar(query: string): Promise<number> {
  const result = await client.query({ query, format: 'JSONEachRow' })
  const [row] = await result.json<Record<string, string>>()
  return Number(Object.values(row!)[0])
}

await runMigrations(client, database)
const stored = await scalar(`SELECT count() FROM ${database}.conversations`)
if (stored < target) {
  console.log(`building ${target} conversations in ${dataDir} (${uptime()})`)
  const started = performance.now()
  await fillWithGeneratedConversations(client, { count: seedCount, hours: 30 * 24, redelivered: 0, seed: 25 })
  const copies = Math.ceil(target / seedCount) - 1
  // Each copy of the generated rows (36-character ids): new session ids, start times moved back a
  // little (kept within the 30 days). The sub-query: WHERE would see the replaced session_id.
  for (let copy = 1; copy <= copies; copy++)
    await client.command({
      query: `INSERT INTO ${database}.conversations
        SELECT * REPLACE (
          concat(session_id, '-', toString(${copy})) AS session_id,
          if(event_time - toIntervalSecond(${copy} * 1733) < now() - INTERVAL 30 DAY, event_time, event_time - toIntervalSecond(${copy} * 1733)) AS event_time,
          if(campaign_item_id IS NULL, NULL, concat(campaign_item_id, '-', toString(${copy}))) AS campaign_item_id)
        FROM (SELECT * FROM ${database}.conversations WHERE length(session_id) = 36)`,
      clickhouse_settings: { insert_deduplication_token: `cost-bench-copy-${copy}` },
    })
  await client.command({ query: `OPTIMIZE TABLE ${database}.conversations FINAL` })
  console.log(`built in ${((performance.now() - started) / 1000).toFixed(0)} s`)
}
if ((await readPrices(client, database)).length === 0)
  await addPrices(
    client,
    database,
    parsePriceCsv(readFileSync(new URL('../docs/prices.example.csv', import.meta.url), 'utf8')),
  )

// A fixed window (the last 30 days when the bench starts): with now() calls at its edge slid out
// between two queries, and the two ways of costing seemed to disagree.
const windowStart = new Date(Date.now() - 30 * 86_400_000).toISOString().replace('T', ' ').replace('Z', '')
const window = `event_time >= toDateTime64('${windowStart}', 3, 'UTC')`
const queries: Record<string, string> = {
  'per campaign, no cost': `
    SELECT ifNull(any(campaign_name), campaign_id) AS campaign, count() AS calls,
      countIf(status = 'Completed') AS completed, round(sum(duration_seconds) / 60) AS minutes
    FROM ${database}.conversations FINAL
    WHERE ${window} AND campaign_id IS NOT NULL
    GROUP BY campaign_id ORDER BY calls DESC`,
  'per campaign, cost (view: dictionary)': `
    SELECT ifNull(any(campaign_name), campaign_id) AS campaign, count() AS calls,
      countIf(status = 'Completed') AS completed, round(sum(cost), 2) AS total_cost,
      round(sum(cost) / nullIf(countIf(status = 'Completed' AND NOT unpriced), 0), 4) AS cost_per_completed_call,
      countIf(unpriced) AS unpriced_calls
    FROM ${database}.conversation_costs
    WHERE ${window} AND campaign_id IS NOT NULL
    GROUP BY campaign_id ORDER BY calls DESC`,
  'per campaign, cost (ASOF JOINs)': asofJoinQuery(),
}

/** The view's rules with ASOF JOINs on the prices table instead of the dictionary. */
function asofJoinQuery(): string {
  const prices = `(SELECT component, telecom_provider, direction, agent_id, unit, toFloat64(price) AS price, valid_from,
      coalesce(valid_to, leadInFrame(toNullable(valid_from)) OVER (PARTITION BY component, telecom_provider, direction,
        agent_id ORDER BY valid_from ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING)) AS valid_until
    FROM ${database}.prices FINAL)`
  const valid = (alias: string) =>
    `if(${alias}.valid_from IS NOT NULL AND (${alias}.valid_until IS NULL OR c.event_time < ${alias}.valid_until), ${alias}.price, NULL)`
  const unitOf = (specific: string, fallback: string) =>
    `if(${valid(specific)} IS NOT NULL, ${specific}.unit, ${fallback}.unit)`
  const join = (alias: string, where: string, on: string) =>
    `ASOF LEFT JOIN (SELECT * FROM ${prices} WHERE ${where}) AS ${alias} ON ${on} AND c.event_time >= ${alias}.valid_from`
  const agentPriced = (component: string) => [
    join(`${component}_a`, `component = '${component}'`, `${component}_a.agent_id = c.agent_id`),
    join(
      `${component}_d`,
      `component = '${component}' AND agent_id = ''`,
      `${component}_d.agent_id = c.every_agent`,
    ),
  ]
  const amount = (component: string, turns: string) =>
    `coalesce(${valid(`${component}_a`)}, ${valid(`${component}_d`)}) * if(${unitOf(`${component}_a`, `${component}_d`)} = 'turn', ${turns}, c.seconds / 60)`
  return `
    SELECT ifNull(any(c.campaign_name), c.campaign_id) AS campaign, count() AS calls,
      countIf(c.status = 'Completed') AS completed, round(sum(call_cost), 2) AS total_cost,
      round(sum(call_cost) / nullIf(countIf(c.status = 'Completed' AND call_cost IS NOT NULL), 0), 4) AS cost_per_completed_call,
      countIf(call_cost IS NULL) AS unpriced_calls
    FROM (
      SELECT campaign_id, campaign_name, status, event_time, agent_id, '' AS every_agent, user_turn_count, agent_turn_count,
        telecom_provider IS NOT NULL AS phone, ifNull(telecom_provider, '') AS provider, '' AS either,
        if(campaign_id IS NOT NULL, 'outbound', 'inbound') AS call_direction, ifNull(duration_seconds, 0) AS seconds
      FROM ${database}.conversations FINAL
      WHERE ${window} AND campaign_id IS NOT NULL
    ) AS c
    ${join('t_dir', "component = 'telephony'", 't_dir.telecom_provider = c.provider AND t_dir.direction = c.call_direction')}
    ${join('t_any', "component = 'telephony' AND direction = ''", 't_any.telecom_provider = c.provider AND t_any.direction = c.either')}
    ${[...agentPriced('stt'), ...agentPriced('tts'), ...agentPriced('llm'), ...agentPriced('call_fee')].join('\n    ')}
    ARRAY JOIN [
      if(c.phone, coalesce(${valid('t_dir')}, ${valid('t_any')}) * ceil(c.seconds / 60), 0)
      + ${amount('stt', 'c.user_turn_count')} + ${amount('tts', 'c.agent_turn_count')}
      + ${amount('llm', 'c.agent_turn_count')} + coalesce(${valid('call_fee_a')}, ${valid('call_fee_d')})] AS call_cost
    GROUP BY c.campaign_id ORDER BY calls DESC
    SETTINGS join_use_nulls = 1`
}

const conversations = await scalar(`SELECT count() FROM ${database}.conversations FINAL WHERE ${window}`)
const campaignCalls = await scalar(
  `SELECT count() FROM ${database}.conversations FINAL WHERE ${window} AND campaign_id IS NOT NULL`,
)
console.log(`${conversations} conversations in the last 30 days, ${campaignCalls} campaign calls`)
// The two ways of costing must agree before either is timed.
const totals = async (name: string) =>
  (
    await (
      await client.query({ query: queries[name]!, format: 'JSONEachRow' })
    ).json<Record<string, unknown>>()
  )
    .map((row) => `${row.campaign} ${row.total_cost} ${row.unpriced_calls}`)
    .sort()
    .join('\n')
const byDictionary = await totals('per campaign, cost (view: dictionary)')
const byJoins = await totals('per campaign, cost (ASOF JOINs)')
if (byDictionary !== byJoins) throw new Error(`the two ways disagree:\n${byDictionary}\n---\n${byJoins}`)
console.log(byDictionary)

const timings = new Map<string, number[]>(Object.keys(queries).map((name) => [name, []]))
console.log(`before: ${uptime()}`)
for (let run = 0; run < runs; run++)
  for (const [name, query] of Object.entries(queries)) {
    const started = performance.now()
    const result = await client.query({ query, format: 'JSONEachRow' })
    await result.json()
    timings.get(name)!.push(performance.now() - started)
  }
console.log(`after:  ${uptime()}`)
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
for (const [name, values] of timings)
  console.log(
    `${name.padEnd(40)} median ${median(values).toFixed(0).padStart(5)} ms  (runs: ${values.map((value) => value.toFixed(0)).join(', ')} ms; limit 1000 ms)`,
  )
await client.close()
if (!existsSync(dataDir)) throw new Error('the data directory went away')
