import { describe, expect, it } from 'vitest'
import { expandPanelSql, type MacroContext } from '../../dashboards/src/grafana-macros.ts'
import {
  conversationLatencyGroups,
  groupedLatencyAndFailureColumns,
  latencyAndFailureColumns,
} from '../../dashboards/src/latency-by-choice.ts'
import { sql } from '../../dashboards/src/panel-sql.ts'
import { database, generatedClickHouse } from './generated-clickhouse.ts'
import { clickhousePanelQueries, provisionedDashboards } from './provisioned-queries.ts'

// The telecom provider tables merge their histograms in two steps (conversationLatencyGroups: per
// group and bucket, then sumMap over those rows). They answer exactly what one sumMap over the
// conversations' rows answers (latencyAndFailureColumns over conversationLatencyFrom, the form the
// other tables keep): the same rows, percentiles, turns, conversations and failed shares, for one key
// and for two, with flagged values left out and taken in, on conversations written by the worker's
// insert (some delivered twice, some without turns: rooms that failed before anyone spoke).
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

const twoForms = (keys: string[]) => {
  const names = keys.map((key) => key.slice(key.lastIndexOf(' AS ') + 4)).join(', ')
  return {
    oneStep: `SELECT ${keys.join(', ')}, ${latencyAndFailureColumns()}
      FROM ${database}.conversation_latency AS conversation FINAL
      WHERE $__timeFilter(event_time) AND 1 = 1
      GROUP BY ${names} ORDER BY ${names}`,
    twoSteps: `SELECT ${names}, ${groupedLatencyAndFailureColumns()}
      FROM ${conversationLatencyGroups('1 = 1', keys)}
      GROUP BY ${names} ORDER BY ${names}`,
  }
}

describe('latency and failures grouped by bucket first', () => {
  it('the telecom provider tables read the grouped rows, the other breakdowns one row per conversation', () => {
    const panels = provisionedDashboards().flatMap((dashboard) =>
      clickhousePanelQueries(dashboard).filter((panel) => panel.rawSql.includes('conversation_latency')),
    )
    const titles = (rawSqlPart: string) =>
      panels
        .filter((panel) => panel.rawSql.includes(rawSqlPart))
        .map((panel) => panel.where.split(' / ').slice(0, 2).join(' / '))
        .sort()
    expect(titles('turns_in_bucket')).toEqual([
      'campaigns.json / Latency and failures per telecom provider',
      'voice-latency.json / Latency and failures per telecom provider',
    ])
    expect(titles('sumMap')).toEqual([
      'agent-tests.json / End-to-end latency of test conversations',
      'agent-tests.json / Latency and failures per test run',
      'campaigns.json / Latency and failures per campaign',
      'campaigns.json / Latency and failures per telecom provider',
      'campaigns.json / p90 end-to-end latency per campaign',
      'voice-latency.json / Latency and failures per campaign',
      'voice-latency.json / Latency and failures per telecom provider',
      'voice-latency.json / Test vs production traffic of each agent',
      'voice-latency.json / p90 end-to-end latency: test vs production',
    ])
  })

  it.each([
    {
      name: 'per telecom provider',
      keys: ["ifNull(conversation.telecom_provider, 'none') AS telecom_provider"],
    },
    {
      name: 'per source and test traffic',
      keys: ['conversation.source AS source', 'conversation.is_test AS is_test'],
    },
  ])('$name: the same rows as one sumMap over the conversations', async ({ keys }) => {
    const { oneStep, twoSteps } = twoForms(keys)
    let compared = 0
    for (const flagged of ['0', '1']) {
      const context: MacroContext = {
        from: fixture.generated.from,
        to: fixture.generated.now,
        intervalSeconds: 300,
        variables: { include_flagged: [flagged] },
      }
      const reference = await rows(expandPanelSql(sql(oneStep), context, {}))
      expect(await rows(expandPanelSql(sql(twoSteps), context, {})), `flagged ${flagged}`).toEqual(reference)
      expect(reference.length).toBeGreaterThan(1)
      compared += reference.length
    }
    expect(compared).toBeGreaterThan(3)
  })
})
