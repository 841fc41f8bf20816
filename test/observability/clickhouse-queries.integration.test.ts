import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parsePriceCsv } from '../../core/pricing/price-csv.ts'
import { addPrices } from '../../core/pricing/price-store.ts'
import { grafanaAlertThresholds } from '../../dashboards/src/grafana-alert-rules.ts'
import { expandPanelSql, type MacroContext, type Selection } from '../../dashboards/src/grafana-macros.ts'
import { database, generatedClickHouse } from './generated-clickhouse.ts'
import {
  alertRuleQueries,
  clickhousePanelQueries,
  clickhouseVariableQueries,
  customVariables,
  type ProvisionedDashboard,
  provisionedDashboards,
  repoRoot,
  variableNames,
} from './provisioned-queries.ts'

// Every ClickHouse query Grafana would run — each panel, variable and alert rule of the
// provisioned files, with the Grafana and plugin macros expanded — and every query of the SQL
// cookbook, against the real schema in embedded ClickHouse filled with generated conversations by
// the worker's own transform and insert. Each must run and return what its panel needs.
interface Column {
  name: string
  type: string
}
interface Result {
  meta: Column[]
  data: Record<string, unknown>[]
}

const numeric = (column: Column) => /^(Nullable\()?(U?Int\d+|Float\d+|Decimal)/.test(column.type)
const textual = (column: Column) => /^(LowCardinality\()?(Nullable\()?(String|FixedString)/.test(column.type)

const fixture = generatedClickHouse(
  'observability-ch',
  { count: 2000, hours: 6, redelivered: 50, seed: 6, flaggedEvery: 10, otlpEvery: 9 },
  // The example prices (Vonage left unpriced on purpose), so cost queries have costs to show.
  (client) =>
    addPrices(
      client,
      database,
      parsePriceCsv(readFileSync(join(repoRoot, 'docs/prices.example.csv'), 'utf8')),
    ),
)

async function run(query: string): Promise<Result> {
  const result = await fixture.client.query({ query, format: 'JSON' })
  return result.json<Record<string, unknown>>() as unknown as Promise<Result>
}

/** The values each variable offers with All selected everywhere (what Grafana shows in its dropdown). */
async function variableOptions(dashboard: ProvisionedDashboard, context: MacroContext) {
  const options: Record<string, string[]> = {}
  for (const variable of clickhouseVariableQueries(dashboard)) {
    const result = await run(expandPanelSql(variable.rawSql, context, options))
    options[variable.name] = result.data.map((row) => String(Object.values(row)[0]))
  }
  return options
}

function contextFor(
  dashboard: ProvisionedDashboard,
  selections: Record<string, Selection> = {},
): MacroContext {
  // Query variables on All, custom ones (the flagged-values switch) on their default.
  const defaults = new Map(customVariables(dashboard).map((variable) => [variable.name, [variable.current]]))
  const variables = Object.fromEntries(
    variableNames(dashboard).map((name) => [name, selections[name] ?? defaults.get(name) ?? '$__all']),
  )
  return {
    from: fixture.generated.from,
    to: fixture.generated.now,
    intervalSeconds: 300,
    variables,
  } as MacroContext
}

/** What a panel of this type needs from its query's result. */
function checkShape(where: string, panelType: string, format: number, result: Result): void {
  expect(result.data.length, `${where}: returns rows`).toBeGreaterThan(0)
  if (panelType === 'annotation') {
    // Grafana reads an annotation's time, text and tags by name
    expect(
      result.meta.map((column) => column.name),
      where,
    ).toEqual(['time', 'text', 'tags'])
    expect(result.meta[0]?.type, `${where}: time is a DateTime`).toMatch(/^DateTime/)
    return
  }
  const values = result.meta.filter(numeric)
  expect(values.length, `${where}: has a numeric column (${JSON.stringify(result.meta)})`).toBeGreaterThan(0)
  if (format === 0) {
    expect(result.meta[0]?.name, `${where}: a time series starts with its time column`).toBe('time')
    expect(result.meta[0]?.type, `${where}: time is a DateTime`).toMatch(/^DateTime/)
    for (const column of result.meta.slice(1))
      expect(numeric(column) || textual(column), `${where}: ${column.name} is a value or a label`).toBe(true)
  }
  if (panelType === 'stat') {
    expect(result.data.length, `${where}: a stat reads one row`).toBe(1)
    for (const column of result.meta)
      expect(numeric(column), `${where}: ${column.name} is numeric`).toBe(true)
    for (const column of result.meta)
      expect(result.data[0]![column.name], `${where}: ${column.name} has a value`).not.toBeNull()
  }
  if (panelType === 'piechart') {
    expect(result.meta.filter(textual).length, `${where}: a pie has a label column`).toBe(1)
    expect(values.length, `${where}: a pie has one value column`).toBe(1)
  }
  if (panelType === 'heatmap')
    for (const column of result.meta.slice(1))
      expect(column.name, `${where}: heatmap buckets are named by their upper bound`).toMatch(
        /^(\d+(\.\d+)?|\+Inf)$/,
      )
}

const clickhouseDashboards = provisionedDashboards().filter(
  (dashboard) => clickhousePanelQueries(dashboard).length > 0,
)

describe('ClickHouse queries of the provisioned dashboards', () => {
  it('finds the four ClickHouse dashboards and their queries', () => {
    expect(clickhouseDashboards.map((dashboard) => dashboard.file).sort()).toEqual([
      'agent-tests.json',
      'campaigns.json',
      'conversation-quality.json',
      'voice-latency.json',
    ])
    expect(clickhouseDashboards.flatMap(clickhousePanelQueries).length).toBeGreaterThanOrEqual(40)
  })

  for (const dashboard of clickhouseDashboards) {
    it(`${dashboard.file}: every variable offers values`, async () => {
      const options = await variableOptions(dashboard, contextFor(dashboard))
      for (const variable of clickhouseVariableQueries(dashboard))
        expect(options[variable.name]?.length, variable.where).toBeGreaterThan(0)
    })

    it(`${dashboard.file}: every panel query with All selected`, async () => {
      const context = contextFor(dashboard)
      const options = await variableOptions(dashboard, context)
      for (const query of clickhousePanelQueries(dashboard)) {
        const sql = expandPanelSql(query.rawSql, context, options)
        const result = await run(sql).catch((error: Error) => {
          throw new Error(`${query.where}: ${error.message}\n${sql}`)
        })
        checkShape(query.where, query.panelType, query.format, result)
      }
    })
  }

  it('every panel query with one value of each variable selected (one campaign call, one test run)', async () => {
    const [call] = (
      await run(`SELECT source, agent_id, campaign_id, ifNull(telecom_provider, 'none') AS telecom_provider
        FROM voice_analytics.campaign_items FINAL WHERE NOT room_failed ORDER BY event_time LIMIT 1`)
    ).data as Record<string, string>[]
    const [run_] = (
      await run(`SELECT source, agent_id, test_run_id FROM voice_analytics.test_results FINAL
        WHERE test_success = false GROUP BY source, agent_id, test_run_id ORDER BY count() DESC LIMIT 1`)
    ).data as Record<string, string>[]
    const selectionFor: Record<string, Record<string, string>> = {
      'voice-latency.json': {
        source: call!.source!,
        agent: call!.agent_id!,
        campaign: call!.campaign_id!,
        telecom_provider: call!.telecom_provider!,
      },
      'campaigns.json': {
        source: call!.source!,
        agent: call!.agent_id!,
        campaign: call!.campaign_id!,
        telecom_provider: call!.telecom_provider!,
      },
      'agent-tests.json': { source: run_!.source!, agent: run_!.agent_id!, test_run: run_!.test_run_id! },
      'conversation-quality.json': {
        source: call!.source!,
        agent: call!.agent_id!,
        campaign: call!.campaign_id!,
        telecom_provider: call!.telecom_provider!,
      },
    }
    for (const dashboard of clickhouseDashboards) {
      const chosen = selectionFor[dashboard.file]!
      const options = await variableOptions(dashboard, contextFor(dashboard))
      for (const [name, value] of Object.entries(chosen))
        expect(options[name], `${dashboard.file}: $${name} offers ${value}`).toContain(value)
      const selections = Object.fromEntries(Object.entries(chosen).map(([name, value]) => [name, [value]]))
      const context = contextFor(dashboard, selections)
      for (const query of clickhousePanelQueries(dashboard)) {
        const sql = expandPanelSql(query.rawSql, context, options)
        for (const value of Object.values(chosen))
          expect(sql, `${query.where} filters by ${value}`).toContain(`'${value}'`)
        checkShape(query.where, query.panelType, query.format, await run(sql))
      }
    }
  })

  it('counts each conversation once though some were delivered twice', async () => {
    const dashboard = clickhouseDashboards.find((candidate) => candidate.file === 'voice-latency.json')!
    const query = clickhousePanelQueries(dashboard).find((candidate) =>
      candidate.where.includes('/ Conversations /'),
    )!
    const context = contextFor(dashboard)
    const { data } = await run(
      expandPanelSql(query.rawSql, context, await variableOptions(dashboard, context)),
    )
    const [raw] = (await run('SELECT count() AS rows FROM voice_analytics.conversations')).data
    expect(Number(raw!.rows)).toBeGreaterThan(fixture.generated.conversations) // the duplicates are really there
    expect(Number(data[0]!.conversations)).toBe(fixture.generated.conversations)
  })
})

/** The window a Grafana alert rule evaluates, ending at the generated data's `now`. */
const windowOf = (rule: { from: number; to: number }): MacroContext => ({
  from: new Date(fixture.generated.now.getTime() - rule.from * 1000),
  to: new Date(fixture.generated.now.getTime() - rule.to * 1000),
  intervalSeconds: 60,
  variables: {},
})

describe('the flagged-values switch of the ClickHouse dashboards (include_flagged)', () => {
  const switchSql = `\${include_flagged:raw}`
  const withSwitch = (dashboard: ProvisionedDashboard, value: string) =>
    contextFor(dashboard, { include_flagged: [value] })

  it('each dashboard with latencies offers it, excluded by default, and every latency query honours it', () => {
    expect(fixture.generated.flagged, 'conversations with flagged items').toBeGreaterThan(10)
    const readsLatencies = (query: { rawSql: string }) =>
      /agent_latency_minute|conversation_items/.test(query.rawSql)
    const withLatencies = clickhouseDashboards.filter((dashboard) =>
      clickhousePanelQueries(dashboard).some((query) => /latency|conversation_items/.test(query.rawSql)),
    )
    // Conversation quality reads turn-taking columns, whose flagged speech the transform leaves out.
    expect(withLatencies.map((dashboard) => dashboard.file).sort()).toEqual([
      'agent-tests.json',
      'campaigns.json',
      'voice-latency.json',
    ])
    for (const dashboard of withLatencies) {
      expect(customVariables(dashboard), dashboard.file).toContainEqual({
        name: 'include_flagged',
        values: ['0', '1'],
        current: '0',
      })
      for (const query of clickhousePanelQueries(dashboard))
        if (readsLatencies(query)) expect(query.rawSql, `${query.where} reads latencies`).toContain(switchSql)
    }
  })

  it('every panel query with flagged values included', async () => {
    for (const dashboard of clickhouseDashboards) {
      const context = withSwitch(dashboard, '1')
      const options = await variableOptions(dashboard, context)
      for (const query of clickhousePanelQueries(dashboard)) {
        const sql = expandPanelSql(query.rawSql, context, options)
        checkShape(query.where, query.panelType, query.format, await run(sql))
      }
    }
  })

  it('leaves the values of flagged items out by default and takes them in when included', async () => {
    const dashboard = clickhouseDashboards.find((candidate) => candidate.file === 'voice-latency.json')!
    const panel = (title: string) =>
      clickhousePanelQueries(dashboard).find((candidate) => candidate.where.includes(`/ ${title} /`))!
    // An hour wider on both sides: the rollup puts a turn in the minute of its item, which may begin
    // before the range or, for a conversation near `now`, end after it (that made the count flaky).
    const rows = async (title: string, value: string) => {
      const context = {
        ...withSwitch(dashboard, value),
        from: new Date(fixture.generated.from.getTime() - 3600_000),
        to: new Date(fixture.generated.now.getTime() + 3600_000),
      }
      return (
        await run(expandPanelSql(panel(title).rawSql, context, await variableOptions(dashboard, context)))
      ).data
    }
    const [truth] = (
      await run(`SELECT count() AS all_turns, countIf(empty(metric_flags)) AS unflagged_turns,
          countIf(NOT empty(metric_flags)) AS flagged_turns
        FROM voice_analytics.conversation_items FINAL
        WHERE e2e_latency IS NOT NULL`)
    ).data
    expect(Number(truth!.flagged_turns), 'flagged turns with an e2e_latency').toBeGreaterThan(0)
    // From the rollup (migration 0006's unflagged states) ...
    expect(Number((await rows('Agent turns', '0'))[0]!.turns)).toBe(Number(truth!.unflagged_turns))
    expect(Number((await rows('Agent turns', '1'))[0]!.turns)).toBe(Number(truth!.all_turns))
    // ... and from the items themselves.
    const heatmapTurns = async (value: string) =>
      (await rows('End-to-end latency distribution', value)).reduce(
        (sum, row) =>
          sum +
          Object.entries(row).reduce((n, [name, count]) => n + (name === 'time' ? 0 : Number(count)), 0),
        0,
      )
    expect(await heatmapTurns('0')).toBe(Number(truth!.unflagged_turns))
    expect(await heatmapTurns('1')).toBe(Number(truth!.all_turns))
    for (const row of await rows('Slowest turns', '0'))
      expect(row.metric_flags, String(row.session_id)).toBe('')
  })
})

describe('latency and failures by what the user can change', () => {
  it('test vs production: each conversation, turn and failure of an agent counts on exactly one side', async () => {
    const dashboard = clickhouseDashboards.find((candidate) => candidate.file === 'voice-latency.json')!
    const query = clickhousePanelQueries(dashboard).find((candidate) =>
      candidate.where.includes('/ Test vs production traffic of each agent /'),
    )!
    const context = contextFor(dashboard)
    const panel = await run(expandPanelSql(query.rawSql, context, await variableOptions(dashboard, context)))
    // The truth, from each table alone (no join): conversations and failures, and turns, per agent
    // name (an agent whose calls also arrive as OpenTelemetry spans has a second agent id, its name:
    // LiveKit has no agent id; the panel shows it as a row of the same name).
    const conversations = await run(`
      SELECT ifNull(agent_name, agent_id) AS agent, count() AS conversations,
        countIf(room_failed OR ifNull(error_message, '') != '') AS failed
      FROM voice_analytics.conversations FINAL
      GROUP BY agent`)
    // Turns of flagged items stay out by default (include_flagged).
    const turns = await run(`
      SELECT ifNull(agent_name, agent_id) AS agent, count() AS turns
      FROM voice_analytics.conversation_items FINAL
      WHERE e2e_latency IS NOT NULL AND empty(metric_flags)
      GROUP BY agent`)
    const turnsOf = new Map(turns.data.map((row) => [String(row.agent), Number(row.turns)]))
    const byAgent = new Map(
      conversations.data.map((row) => [
        String(row.agent),
        {
          conversations: Number(row.conversations),
          failed: Number(row.failed),
          turns: turnsOf.get(String(row.agent)) ?? 0,
        },
      ]),
    )
    const shown = new Map<string, Record<string, number>>()
    for (const row of panel.data) {
      const n = (name: string) => Number(row[name] ?? 0)
      const sum = shown.get(String(row.agent)) ?? {}
      const add = (name: string, value: number) => {
        sum[name] = (sum[name] ?? 0) + value
      }
      add('conversations_production', n('conversations_production'))
      add('conversations_test', n('conversations_test'))
      add('turns_production', n('turns_production'))
      add('turns_test', n('turns_test'))
      add(
        'failed',
        n('failed_share_production') * n('conversations_production') +
          n('failed_share_test') * n('conversations_test'),
      )
      shown.set(String(row.agent), sum)
    }
    expect([...shown.keys()].sort()).toEqual([...byAgent.keys()].sort())
    let bothSides = 0
    for (const [agent, sum] of shown) {
      const want = byAgent.get(agent)!
      expect(sum.conversations_production! + sum.conversations_test!, agent).toBe(Number(want.conversations))
      expect(sum.turns_production! + sum.turns_test!, agent).toBe(Number(want.turns))
      expect(sum.failed, agent).toBeCloseTo(Number(want.failed), 0)
      if (sum.turns_production! > 0 && sum.turns_test! > 0) bothSides++
    }
    expect(bothSides, 'agents with test and production traffic in the window').toBeGreaterThan(0)
  })
})

describe('ClickHouse queries of the provisioned Grafana alert rules', () => {
  it('each rule query returns labels and one value per row over its window', async () => {
    const rules = alertRuleQueries()
    // the 10 rules' queries A, and the regression rule's two figures (D, E)
    expect(rules.length).toBe(12)
    expect(rules.filter((rule) => rule.where.endsWith(' / A')).length).toBe(10)
    for (const rule of rules) {
      const result = await run(expandPanelSql(rule.rawSql, windowOf(rule), {}))
      expect(result.data.length, `${rule.where}: returns rows`).toBeGreaterThan(0)
      expect(result.meta.filter(numeric).length, `${rule.where}: one value column`).toBe(1)
      expect(result.meta.filter(textual).length, `${rule.where}: label columns`).toBe(result.meta.length - 1)
    }
  })
})

/** A rule guarded by `HAVING count() >= N` judges exactly the groups with at least N rows in its window. */
const countGuard = /\nHAVING count\(\) >= (\d+)$/
const labelsOf = (result: Result) =>
  result.data
    .map((row) => JSON.stringify(result.meta.filter(textual).map((column) => row[column.name])))
    .sort()

async function expectCountGuard(rule: ReturnType<typeof alertRuleQueries>[number], minimum: number) {
  expect(rule.rawSql, rule.where).toMatch(countGuard)
  expect(Number(countGuard.exec(rule.rawSql)![1]), `${rule.where}: N`).toBe(minimum)
  const context = windowOf(rule)
  // The same query unguarded, with each group's rows: what the guard chooses from.
  const unguarded = rule.rawSql.replace(countGuard, '').replace(/^SELECT /, 'SELECT count() AS guard_rows, ')
  const groups = (await run(expandPanelSql(unguarded, context, {}))).data.map((row) => Number(row.guard_rows))
  expect(groups.length, `${rule.where}: several groups in the window`).toBeGreaterThan(1)
  const sorted = [...groups].sort((a, b) => a - b)
  // The largest group's rows as the bar: that group is judged, the smaller ones are not.
  const bar = sorted[sorted.length - 1]!
  expect(bar, `${rule.where}: groups differ in rows`).toBeGreaterThan(sorted[0]!)
  const guarded = rule.rawSql.replace(countGuard, `\nHAVING count() >= ${bar}`)
  const judged = await run(expandPanelSql(guarded, context, {}))
  const expected = await run(
    expandPanelSql(`SELECT * FROM (${unguarded}) WHERE guard_rows >= ${bar}`, context, {}),
  )
  expect(judged.data.length, rule.where).toBe(groups.filter((rows) => rows >= bar).length)
  expect(judged.data.length, `${rule.where}: some groups left out for lack of rows`).toBeLessThan(
    groups.length,
  )
  expect(labelsOf(judged), rule.where).toEqual(labelsOf(expected))
  // With the bar above every group, nothing is judged: no row, no alert.
  const none = await run(
    expandPanelSql(rule.rawSql.replace(countGuard, `\nHAVING count() >= ${bar + 1}`), context, {}),
  )
  expect(none.data, rule.where).toEqual([])
}

describe('the sample-size guard of the Grafana latency percentile rules', () => {
  const latencyRules = () => alertRuleQueries().filter((rule) => rule.where.includes(' latency high '))

  it('exactly the agents, campaigns and providers with at least N turns in the window are judged', async () => {
    expect(latencyRules().length).toBe(3)
    for (const rule of latencyRules()) await expectCountGuard(rule, grafanaAlertThresholds.latencyMinTurns)
  })
})

describe('the sample-size guard of the Grafana conversation quality rules', () => {
  it('exactly the agents with at least N calls with speech in the window are judged', async () => {
    const qualityRules = alertRuleQueries().filter((rule) => /dead air|barge-in/.test(rule.where))
    expect(qualityRules.length).toBe(2)
    for (const rule of qualityRules) await expectCountGuard(rule, grafanaAlertThresholds.qualityMinCalls)
  })
})

describe('the sample-size guard of the Grafana campaign cost rule', () => {
  const guard = /\nHAVING countIf\(status = 'Completed' AND NOT unpriced\) >= (\d+)$/
  it('judges exactly the campaigns with at least N priced completed calls, on the cost view', async () => {
    const rule = alertRuleQueries().find((candidate) => candidate.where.includes('cost per completed call'))!
    expect(rule.rawSql).toMatch(guard)
    expect(Number(guard.exec(rule.rawSql)![1])).toBe(grafanaAlertThresholds.campaignCostMinCompleted)
    const context = windowOf(rule)
    const completed = (
      await run(
        expandPanelSql(
          `SELECT campaign_id, countIf(status = 'Completed' AND NOT unpriced) AS completed, sum(cost) AS total
            FROM voice_analytics.conversation_costs
            WHERE $__timeFilter(event_time) AND campaign_id IS NOT NULL GROUP BY campaign_id ORDER BY completed`,
          context,
          {},
        ),
      )
    ).data.map((row) => ({
      id: String(row.campaign_id),
      completed: Number(row.completed),
      total: Number(row.total),
    }))
    expect(completed.length, 'campaigns in the window').toBeGreaterThan(1)
    expect(completed[0]!.completed, 'campaigns differ in completed calls').toBeLessThan(
      completed.at(-1)!.completed,
    )
    // The smallest campaign's count plus one as the bar: every campaign but it (and its equals) judged.
    const bar = completed[0]!.completed + 1
    const judged = await run(
      expandPanelSql(
        rule.rawSql.replace(guard, `\nHAVING countIf(status = 'Completed' AND NOT unpriced) >= ${bar}`),
        context,
        {},
      ),
    )
    const expected = completed.filter((campaign) => campaign.completed >= bar)
    expect(judged.data.map((row) => String(row.campaign_id)).sort()).toEqual(
      expected.map((campaign) => campaign.id).sort(),
    )
    for (const row of judged.data) {
      const campaign = expected.find((candidate) => candidate.id === String(row.campaign_id))!
      expect(Number(row.cost_per_completed_call)).toBeCloseTo(campaign.total / campaign.completed, 6)
    }
  })
})

describe('docs/sql-cookbook.md', () => {
  const cookbook = readFileSync(join(repoRoot, 'docs/sql-cookbook.md'), 'utf8')
  const queries = [...cookbook.matchAll(/^### (.+)$[\s\S]*?^```sql\n([\s\S]*?)^```/gm)].map(
    ([, title, sql]) => ({
      title: title!,
      sql: sql!,
    }),
  )

  it('has a query for each question the issue names', () => {
    expect(queries.length).toBe([...cookbook.matchAll(/^```sql$/gm)].length)
    const titles = queries.map((query) => query.title.toLowerCase()).join('\n')
    for (const topic of [
      'latency percentiles per agent this week',
      'slowest turns',
      'tool-call error rates',
      'campaign outcomes',
      'pass rate per test run',
      'why tests fail',
      'failed rooms and their errors',
      'latency and failure rate per campaign',
      'latency and failure rate per telecom provider',
      'latency and failure rate per test run',
      'test traffic vs production traffic per agent',
      'cost per campaign',
      'cost per completed call',
      'cost per agent',
      'cost per telecom provider',
      'cost per passed test',
      'money lost to failed rooms',
      'cost per day',
      'fingerprints per agent',
    ])
      expect(titles).toContain(topic)
  })

  it('every query runs as written and returns rows', async () => {
    for (const query of queries) {
      const result = await run(query.sql).catch((error: Error) => {
        throw new Error(`"${query.title}": ${error.message}`)
      })
      expect(result.data.length, `"${query.title}" returns rows`).toBeGreaterThan(0)
    }
  })
})
