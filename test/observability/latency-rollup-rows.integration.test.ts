import { describe, expect, it } from 'vitest'
import { expandPanelSql, type MacroContext } from '../../dashboards/src/grafana-macros.ts'
import { database, generatedClickHouse } from './generated-clickhouse.ts'
import {
  clickhousePanelQueries,
  clickhouseVariableQueries,
  type ProvisionedDashboard,
  provisionedDashboards,
} from './provisioned-queries.ts'

// The panels that read whole hours from agent_latency_hour (dashboards/src/latency-rollup-rows.ts)
// answer exactly what agent_latency_minute alone answers: the same rows, to the last bucket, over
// ranges that start and end inside an hour, at minute and at hour intervals, with flagged values
// left out and taken in — on conversations written by the worker's insert (which recomputes the
// hours it touches), some delivered twice. The reference is the same SQL with the hour rollup
// turned off (its condition, which is `(1=1) AND (1=1)` with no campaign or provider chosen).
const hourRollupOn = '(1=1) AND (1=1)'

const fixture = generatedClickHouse('latency-rollup-rows', {
  count: 1500,
  hours: 7,
  redelivered: 60,
  seed: 23,
  flaggedEvery: 9,
})

async function rows(query: string): Promise<unknown[][]> {
  const result = await fixture.client.query({ query, format: 'JSONCompact' })
  return ((await result.json()) as { data: unknown[][] }).data
}

describe('panels over the hour rollup', () => {
  const dashboard = provisionedDashboards().find(
    (candidate) => candidate.file === 'voice-latency.json',
  ) as ProvisionedDashboard
  const panels = clickhousePanelQueries(dashboard).filter((panel) =>
    panel.rawSql.includes('agent_latency_hour'),
  )

  it('the per-agent latency panels read it', () => {
    expect(panels.map((panel) => panel.where.split(' / ')[1]).sort()).toEqual([
      'Agent turns',
      'End-of-turn delay per agent',
      'End-to-end latency per agent',
      'LLM time to first token per agent',
      'Median end-to-end latency',
      'Percentiles per agent over the range',
      'TTS time to first byte per agent',
      'Transcription delay per agent',
      'p95 LLM time to first token',
      'p95 end-to-end latency',
    ])
  })

  it('answer as the minute rollup alone does, over partial hours, at minute and hour intervals', async () => {
    const minute = 60_000
    const windows = [
      // 5 h 23 min starting 17 minutes into an hour: whole hours inside, partial ones at both ends.
      { from: fixture.generated.from.getTime() + 17 * minute + 31_000, hours: 5.39, interval: 3600 },
      { from: fixture.generated.from.getTime() + 17 * minute + 31_000, hours: 5.39, interval: 60 },
      // The whole data, an hour wider on both sides; and 40 minutes (no whole hour).
      { from: fixture.generated.from.getTime() - 60 * minute, hours: 9, interval: 3600 },
      { from: fixture.generated.from.getTime() + 100 * minute, hours: 0.67, interval: 3600 },
    ]
    let compared = 0
    for (const window of windows)
      for (const flagged of ['0', '1']) {
        const context: MacroContext = {
          from: new Date(window.from),
          to: new Date(window.from + window.hours * 3600_000),
          intervalSeconds: window.interval,
          variables: {
            source: '$__all',
            agent: '$__all',
            campaign: '$__all',
            telecom_provider: '$__all',
            include_flagged: [flagged],
          },
        }
        const options: Record<string, string[]> = {}
        for (const variable of clickhouseVariableQueries(dashboard))
          options[variable.name] = (await rows(expandPanelSql(variable.rawSql, context, options))).map(
            (row) => String(row[0]),
          )
        for (const panel of panels) {
          const sql = expandPanelSql(panel.rawSql, context, options)
          expect(sql, panel.where).toContain(hourRollupOn)
          const answer = await rows(sql)
          const reference = await rows(sql.replaceAll(hourRollupOn, '0'))
          expect(answer, `${panel.where} over ${JSON.stringify(window)}, flagged ${flagged}`).toEqual(
            reference,
          )
          if (reference.length > 0) compared++
        }
      }
    expect(compared).toBeGreaterThan(60)
    const [[hours]] = (await rows(`SELECT count() FROM ${database}.agent_latency_hour FINAL`)) as [[string]]
    expect(Number(hours), 'hour rows written by the insert').toBeGreaterThan(5)
  })
})
