import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createClickHouse } from '../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../core/clickhouse/clickhouse-migrations.ts'
import { grafanaAlertThresholds as t } from '../dashboards/src/grafana-alert-rules.ts'
import type { VersionChange } from '../generator/agent-versions.ts'
import { agentNameAt } from '../generator/synthetic-world.ts'
import { evaluateRule, provisionedClickHouseRule } from '../test/observability/clickhouse-rule-evaluation.ts'
import { storeAgentTraffic } from '../test/support/agent-traffic.ts'
import { database } from '../test/support/embedded-clickhouse.ts'
import { alertEpisodes, type Evaluation, timeToDetect } from './regression-episodes.ts'

// The latency regression rule as provisioned (#32), judged on generated agents at 100 calls an hour
// each, stored by the worker's transform and insert in an embedded ClickHouse:
// - detection: rounds of agents of which half change their instructions and answer 300 ms slower,
//   half change them with no effect; the rule is evaluated every minute for the hour after the
//   change (time to detect) and every 5 minutes for 6 hours (alerts on changes without effect);
// - false alarms: agents that change nothing for `--days` days after the 4 weeks the rule's
//   baseline needs, evaluated every `--step-minutes` (a run of firing evaluations is one alert).
// Prints markdown for bench/results/regressions.md.
const { values: args } = parseArgs({
  options: {
    days: { type: 'string', default: '30' },
    agents: { type: 'string', default: '2' },
    'step-minutes': { type: 'string', default: '15' },
    rounds: { type: 'string', default: '2' },
    'agents-per-round': { type: 'string', default: '8' },
    'calls-per-hour': { type: 'string', default: '100' },
    'effect-seconds': { type: 'string', default: '0.3' },
  },
})
const minute = 60_000
const hour = 60 * minute
const day = 24 * hour
const callsPerAgentHour = Number(args['calls-per-hour'])
const effect = Number(args['effect-seconds'])
const end = Math.floor(Date.now() / hour) * hour
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')
const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`)

const dataDir = mkdtempSync(join(tmpdir(), 'va-regressions-bench-'))
const client = createClickHouse({
  CLICKHOUSE_DATA_DIR: dataDir,
  CLICKHOUSE_USER: 'default',
  CLICKHOUSE_PASSWORD: '',
})
await runMigrations(client, database)
const rule = provisionedClickHouseRule('voice-agent-regression-clickhouse')
const evaluationMs: number[] = []

async function emptyTables(): Promise<void> {
  const result = await client.query({
    query: `SELECT name FROM system.tables WHERE database = '${database}' AND engine LIKE '%MergeTree%' AND name != 'schema_migrations'`,
    format: 'JSONEachRow',
  })
  for (const { name } of await result.json<{ name: string }>())
    await client.command({ query: `TRUNCATE TABLE ${database}.${name}` })
}

/** Each agent's evaluations at the given times. */
async function evaluate(times: number[]): Promise<Map<string, Evaluation[]>> {
  const byAgent = new Map<string, Evaluation[]>()
  for (const at of times) {
    const started = performance.now()
    const instances = await evaluateRule(client, rule, new Date(at))
    evaluationMs.push(performance.now() - started)
    for (const instance of instances) {
      const agent = instance.labels.agent!
      byAgent.set(agent, [...(byAgent.get(agent) ?? []), { at, firing: instance.firing }])
    }
  }
  return byAgent
}
const every = (from: number, to: number, stepMs: number) =>
  Array.from({ length: Math.floor((to - from) / stepMs) + 1 }, (_, index) => from + index * stepMs)
/** The rule's baseline weeks before each of the times in [from, to], with a margin for its window. */
const weeksBefore = (from: number, to: number) =>
  Array.from({ length: t.regressionBaselineWeeks }, (_, week) => ({
    from: from - (week + 1) * 7 * day - t.regressionRecentMinutes * minute - 10 * minute,
    hours: (to - from + t.regressionRecentMinutes * minute + 10 * minute) / hour,
  }))

const report: string[] = [
  `## ${new Date().toISOString().slice(0, 16)}Z: ${callsPerAgentHour} calls an hour per agent, rule as provisioned (z ${t.regressionZ}, minimum effect ${t.regressionMinEffectSeconds} s, guard ${t.regressionMinRecentCalls}/${t.regressionMinPastCalls} calls), load ${load()} at start`,
]

// Detection
const rounds = Number(args.rounds)
const perRound = Number(args['agents-per-round'])
const detected: (number | undefined)[] = []
let noEffectAlerts = 0
for (let round = 0; round < rounds; round++) {
  await emptyTables()
  const changedAt = end - 6 * hour
  const slower = (index: number) => index < perRound / 2
  const versionChanges: VersionChange[] = Array.from({ length: perRound }, (_, index) => ({
    agentIndex: index,
    at: changedAt,
    instruction: `Round ${round}: always confirm the caller's name before answering.`,
    addedSeconds: slower(index) ? effect : 0,
  }))
  const started = performance.now()
  const stored = await storeAgentTraffic(client, {
    agents: perRound,
    callsPerAgentHour,
    stretches: [{ from: changedAt - 7 * hour, hours: 13 }, ...weeksBefore(changedAt, end)],
    versionChanges,
    seed: 1000 + round,
  })
  log(
    `round ${round}: ${stored} conversations stored in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  )
  const firstHour = await evaluate(every(changedAt, changedAt + hour, minute))
  const sixHours = await evaluate(every(changedAt, end, 5 * minute))
  for (let index = 0; index < perRound; index++) {
    const name = agentNameAt(index)
    if (slower(index)) detected.push(timeToDetect(firstHour.get(name) ?? [], changedAt))
    else
      noEffectAlerts += alertEpisodes([...(firstHour.get(name) ?? []), ...(sixHours.get(name) ?? [])]).length
  }
}
const found = detected.filter((ms): ms is number => ms !== undefined).sort((a, b) => a - b)
const minutes = (ms: number) => `${(ms / minute).toFixed(0)} min`
report.push(
  '',
  `Detection: ${found.length} of ${detected.length} changes adding ${effect * 1000} ms alerted within the hour; ` +
    `time to detect ${found.length ? `${minutes(found[0]!)} to ${minutes(found.at(-1)!)}, median ${minutes(found[Math.floor(found.length / 2)]!)}` : 'none'} ` +
    `(limit 30 min: ${found.length === detected.length && found.every((ms) => ms <= 30 * minute) ? 'meets' : 'MISSES'}). ` +
    `Changes without effect: ${noEffectAlerts} alerts over ${(rounds * perRound) / 2} changes in the 6 hours after them (limit 0: ${noEffectAlerts === 0 ? 'meets' : 'MISSES'}).`,
)

console.log(report.join('\n'))
report.length = 0

// False alarms
const days = Number(args.days)
const agents = Number(args.agents)
await emptyTables()
const steadyFrom = end - days * day
const started = performance.now()
const stored = await storeAgentTraffic(client, {
  agents,
  callsPerAgentHour,
  stretches: [
    {
      from: steadyFrom - t.regressionBaselineWeeks * 7 * day - 2 * hour,
      hours: (end - steadyFrom) / hour + t.regressionBaselineWeeks * 7 * 24 + 2,
    },
  ],
  seed: 2000,
})
log(`steady: ${stored} conversations stored in ${((performance.now() - started) / 1000).toFixed(0)} s`)
const step = Number(args['step-minutes']) * minute
const steady = await evaluate(every(steadyFrom, end, step))
const perAgent = [...steady.entries()].map(([agent, evaluations]) => ({
  agent,
  evaluations: evaluations.length,
  alerts: alertEpisodes(evaluations).length,
}))
const worst = Math.max(0, ...perAgent.map((agent) => agent.alerts))
report.push(
  '',
  `False alarms: ${agents} agents that change nothing for ${days} days, evaluated every ${args['step-minutes']} min: ` +
    perAgent
      .map((agent) => `${agent.agent} ${agent.alerts} alerts in ${agent.evaluations} evaluations`)
      .join('; ') +
    ` (limit 1 per agent per month: ${perAgent.length === agents && worst * (30 / days) <= 1 ? 'meets' : 'MISSES'}).`,
)
const sorted = [...evaluationMs].sort((a, b) => a - b)
report.push(
  '',
  `One evaluation of the rule: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms, p95 ${sorted[Math.floor(sorted.length * 0.95)]!.toFixed(0)} ms over ${sorted.length} (at ${callsPerAgentHour} calls an hour per agent). Load at the end ${load()}.`,
)
console.log(report.join('\n'))
await client.close()
rmSync(dataDir, { recursive: true, force: true })
