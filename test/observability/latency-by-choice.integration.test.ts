import { describe, expect, it } from 'vitest'
import { expandPanelSql, type MacroContext } from '../../dashboards/src/grafana-macros.ts'
import {
  conversationLatencyGroups,
  latencyAndFailureColumns,
} from '../../dashboards/src/latency-by-choice.ts'
import { histogramQuantile, mergedHistogram } from '../../dashboards/src/latency-histogram.ts'
import { sql } from '../../dashboards/src/panel-sql.ts'
import { database, generatedClickHouse } from './generated-clickhouse.ts'
import { clickhousePanelQueries, provisionedDashboards } from './provisioned-queries.ts'

// The latency-by-choice panels merge their histograms in two steps (conversationLatencyGroups: per
// group and bucket, then sumMap over those rows). They answer exactly what one sumMap over the
// conversations' rows answers, the form they had before: the same rows, percentiles, turns,
// conversations and failed shares, for every shape the tables use — one key, a key with extra
// aggregates, a key split by a condition (test vs production), at two intervals — with
// flagged values left out and taken in, on conversations written by the worker's insert (some
// delivered twice, some without turns: rooms that failed before anyone spoke).
const fixture = generatedClickHouse('latency-by-choice', {
  count: 1200,
  hours: 6,
  redelivered: 50,
  seed: 31,
  flaggedEvery: 7,
})

async function rows(query: string): Promise<unknown[][]> {
  const result = await fixture.client.query({ query, format: 'JSONCompact' })
  return ((await result.json()) as { data: unknown[][] }).data
}

/** The one-step form: every conversation's row merged by one sumMap (what the panels read before). */
function oneStep(
  keys: string[],
  conditions: { suffix: string; condition?: string }[],
  extras: string[] = [],
) {
  const names = keys.map((key) => key.slice(key.lastIndexOf(' AS ') + 4))
  const columns = conditions.flatMap(({ suffix, condition }) => {
    const histogram = mergedHistogram('e2e_latency', condition)
    const count = condition === undefined ? 'count()' : `countIf(${condition})`
    const failed = condition === undefined ? 'conversation.failed' : `conversation.failed AND ${condition}`
    return [
      `arraySum((${histogram}).2) AS turns${suffix}`,
      ...[0.5, 0.9, 0.95].map(
        (level) => `round(${histogramQuantile(level, histogram)} * 1000) AS e2e_p${level * 100}_ms${suffix}`,
      ),
      `${count} AS conversations${suffix}`,
      `round(countIf(${failed}) / nullIf(${count}, 0), 4) AS failed_share${suffix}`,
    ]
  })
  return `SELECT ${[...keys, ...extras, ...columns].join(', ')}
    FROM ${database}.conversation_latency AS conversation FINAL
    WHERE $__timeFilter(event_time) AND 1 = 1
    GROUP BY ${names.join(', ')} ORDER BY ${names.join(', ')}`
}

/** The panels' form; `names`: the keys the query around groups by (all of `keys` unless told). */
function twoSteps(
  keys: string[],
  conditions: { suffix: string; condition?: string }[],
  extras: { inner: string; outer: string }[] = [],
  names = keys.map((key) => key.slice(key.lastIndexOf(' AS ') + 4)),
) {
  const columns = conditions.map(({ suffix, condition }) => latencyAndFailureColumns(suffix, condition))
  return `SELECT ${[...names, ...extras.map((extra) => extra.outer), ...columns].join(', ')}
    FROM ${conversationLatencyGroups(
      '1 = 1',
      keys,
      extras.map((extra) => extra.inner),
    )}
    GROUP BY ${names.join(', ')} ORDER BY ${names.join(', ')}`
}

describe('latency and failures by choice, merged in two steps', () => {
  const all = [{ suffix: '' }]
  const shapes = [
    {
      name: 'per telecom provider',
      before: oneStep(["ifNull(conversation.telecom_provider, 'none') AS telecom_provider"], all),
      after: twoSteps(["ifNull(conversation.telecom_provider, 'none') AS telecom_provider"], all),
    },
    {
      name: 'per campaign, with its name',
      before: oneStep(['conversation.campaign_id AS campaign_id'], all, [
        'ifNull(any(conversation.campaign_name), campaign_id) AS campaign',
      ]),
      after: twoSteps(['conversation.campaign_id AS campaign_id'], all, [
        {
          inner: 'any(conversation.campaign_name) AS names',
          outer: 'ifNull(any(names), campaign_id) AS campaign',
        },
      ]),
    },
    {
      name: 'per test run, with its first conversation',
      before: oneStep(['conversation.test_run_id AS test_run_id'], all, [
        'min(conversation.event_time) AS started',
      ]),
      after: twoSteps(['conversation.test_run_id AS test_run_id'], all, [
        { inner: 'min(conversation.event_time) AS first', outer: 'min(first) AS started' },
      ]),
    },
    {
      name: 'per agent, production beside test',
      before: `${oneStep(
        ['conversation.agent_id AS agent_id'],
        [
          { suffix: '_production', condition: 'NOT conversation.is_test' },
          { suffix: '_test', condition: 'conversation.is_test' },
        ],
      )}`,
      after: twoSteps(
        ['conversation.agent_id AS agent_id', 'conversation.is_test AS is_test'],
        [
          { suffix: '_production', condition: 'NOT is_test' },
          { suffix: '_test', condition: 'is_test' },
        ],
        [],
        ['agent_id'],
      ),
    },
  ]

  it('the panels that break latency down by choice read the grouped rows', () => {
    const panels = provisionedDashboards().flatMap((dashboard) =>
      clickhousePanelQueries(dashboard).filter((panel) => panel.rawSql.includes('conversation_latency')),
    )
    const grouped = panels.filter((panel) => panel.rawSql.includes('turns_in_bucket'))
    expect(grouped.map((panel) => panel.where.split(' / ').slice(0, 2).join(' / ')).sort()).toEqual([
      'agent-tests.json / Latency and failures per test run',
      'campaigns.json / Latency and failures per campaign',
      'campaigns.json / Latency and failures per telecom provider',
      'voice-latency.json / Latency and failures per campaign',
      'voice-latency.json / Latency and failures per telecom provider',
      'voice-latency.json / Test vs production traffic of each agent',
    ])
    // The series over time merge one row per conversation (conversationLatencyFrom).
    const oneStep = panels.filter((panel) => panel.rawSql.includes('sumMap(if('))
    expect(oneStep.map((panel) => panel.where.split(' / ').slice(0, 2).join(' / ')).sort()).toEqual([
      'agent-tests.json / End-to-end latency of test conversations',
      'campaigns.json / p90 end-to-end latency per campaign',
      'voice-latency.json / p90 end-to-end latency: test vs production',
    ])
  })

  it.each(shapes)('$name: the same rows as one sumMap over the conversations', async ({ before, after }) => {
    let compared = 0
    for (const intervalSeconds of [300, 3600])
      for (const flagged of ['0', '1']) {
        const context: MacroContext = {
          from: fixture.generated.from,
          to: fixture.generated.now,
          intervalSeconds,
          variables: { include_flagged: [flagged] },
        }
        const reference = await rows(expandPanelSql(sql(before), context, {}))
        expect(
          await rows(expandPanelSql(sql(after), context, {})),
          `interval ${intervalSeconds}, flagged ${flagged}`,
        ).toEqual(reference)
        expect(reference.length).toBeGreaterThan(1)
        compared += reference.length
      }
    expect(compared).toBeGreaterThan(4)
  })
})
