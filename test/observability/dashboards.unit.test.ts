import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Panel } from '@grafana/grafana-foundation-sdk/dashboard'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { alertRulesFile, dashboardFiles, renderAll } from '../../dashboards/src/build-dashboards.ts'
import { grafanaAlertThresholds } from '../../dashboards/src/grafana-alert-rules.ts'
import {
  alertProvisioningFiles,
  clickhousePanelQueries,
  provisionedDashboards,
  repoRoot,
  variableNames,
} from './provisioned-queries.ts'

// The provisioned dashboards and Grafana alert rules, checked as Grafana would load them: the
// committed files are what the code in dashboards/src builds (with @grafana/grafana-foundation-sdk,
// so their structure is typed), and their references (datasources, variables, ids) hold.
const dashboards = provisionedDashboards()
const read = (path: string) => readFileSync(join(repoRoot, 'dashboards', path), 'utf8')

describe('generated files', () => {
  it('the committed JSON and YAML are what dashboards/src builds (run `npm run dashboards` after a change)', () => {
    for (const [path, content] of Object.entries(renderAll())) {
      const committed = path.endsWith('.json') ? JSON.parse(read(path)) : parse(read(path))
      expect(committed, path).toEqual(content)
    }
    expect(dashboards.map((dashboard) => `grafana/dashboards/${dashboard.file}`).sort()).toEqual(
      Object.keys(dashboardFiles).sort(),
    )
  })
})

describe('dashboards', () => {
  it('are the five the issues name, each with its own uid', () => {
    expect(dashboards.map((dashboard) => dashboard.dashboard.title).sort()).toEqual([
      'Agent tests',
      'Campaigns',
      'Conversation quality',
      'Pipeline health',
      'Voice latency',
    ])
    expect(new Set(dashboards.map((dashboard) => dashboard.dashboard.uid)).size).toBe(dashboards.length)
  })

  for (const { file, dashboard } of dashboards) {
    const panels = (dashboard.panels ?? []) as Panel[]
    const queryPanels = panels.filter((panel) => panel.type !== 'row')

    it(`${file}: panels have unique ids, fit the 24-column grid and do not overlap`, () => {
      expect(new Set(panels.map((panel) => panel.id)).size).toBe(panels.length)
      const cells = new Set<string>()
      for (const panel of panels) {
        const { x, y, w, h } = panel.gridPos!
        expect(x + w, `${panel.title} fits`).toBeLessThanOrEqual(24)
        for (let column = x; column < x + w; column++)
          for (let row = y; row < y + h; row++) {
            const cell = `${column},${row}`
            expect(cells.has(cell), `${panel.title} overlaps another panel at ${cell}`).toBe(false)
            cells.add(cell)
          }
      }
    })

    it(`${file}: every panel queries a provisioned datasource, with distinct refIds`, () => {
      for (const panel of queryPanels) {
        const targets = (panel.targets ?? []) as unknown as {
          refId: string
          datasource: { uid: string; type: string }
        }[]
        expect(targets.length, `${panel.title} has queries`).toBeGreaterThan(0)
        expect(new Set(targets.map((target) => target.refId)).size, `${panel.title} refIds`).toBe(
          targets.length,
        )
        for (const target of targets)
          expect([
            ['prometheus', 'prometheus'],
            ['clickhouse', 'grafana-clickhouse-datasource'],
          ]).toContainEqual([target.datasource.uid, target.datasource.type])
        expect(panel.title && panel.description, `${panel.title} has a title and a description`).toBeTruthy()
      }
    })

    it(`${file}: ClickHouse queries are raw SQL in the format their panel needs`, () => {
      for (const panel of queryPanels)
        for (const target of (panel.targets ?? []) as unknown as Record<string, unknown>[]) {
          if ((target.datasource as { uid: string }).uid !== 'clickhouse') continue
          expect(target.editorType, panel.title).toBe('sql')
          const timeseries = ['timeseries', 'heatmap'].includes(panel.type)
          expect(target.format, `${panel.title}: format`).toBe(timeseries ? 0 : 1)
          expect(target.queryType, `${panel.title}: queryType`).toBe(timeseries ? 'timeseries' : 'table')
          expect(target.rawSql, `${panel.title} filters on the dashboard's time range`).toMatch(
            /\$__timeFilter\(/,
          )
          if (timeseries) expect(target.rawSql, panel.title).toMatch(/\$__timeInterval\(\w+\) AS time\b/)
        }
    })

    it(`${file}: every variable a query uses is defined, and every variable is used`, () => {
      const defined = variableNames({ file, dashboard })
      const text = JSON.stringify(dashboard.panels)
      const used = new Set(
        [...text.matchAll(/\$\{?(\w+)/g)].map((match) => match[1]!).filter((name) => !name.startsWith('__')),
      )
      for (const name of used) expect(defined, `${file} defines $${name}`).toContain(name)
      for (const name of defined) expect(used, `${file} uses $${name}`).toContain(name)
    })
  }

  it('latency panels show milliseconds, from seconds in the tables', () => {
    const latency = dashboards.find((dashboard) => dashboard.file === 'voice-latency.json')!
    const percentilePanels = ((latency.dashboard.panels ?? []) as Panel[]).filter((panel) =>
      panel.title?.endsWith('per agent'),
    )
    expect(percentilePanels.map((panel) => panel.title)).toEqual([
      'End-to-end latency per agent',
      'LLM time to first token per agent',
      'TTS time to first byte per agent',
      'Transcription delay per agent',
      'End-of-turn delay per agent',
    ])
    for (const panel of percentilePanels) {
      expect(panel.fieldConfig?.defaults?.unit, panel.title).toBe('ms')
      const sql = clickhousePanelQueries(latency).find((query) => query.where.includes(panel.title!))!.rawSql
      for (const quantile of ['0.5', '0.95', '0.99'])
        expect(sql).toContain(`running > least(toUInt64(floor(${quantile} * arraySum(`)
      expect(sql).toContain('FROM voice_analytics.agent_latency_minute FINAL')
      expect(sql).toContain('* 1000')
    }
  })

  it("read item rows only for the slowest turns, there only the slowest conversations' items", () => {
    const readers = dashboards.flatMap((dashboard) =>
      clickhousePanelQueries(dashboard)
        .filter((query) => query.rawSql.includes('.conversation_items'))
        .map((query) => ({ where: query.where, rawSql: query.rawSql })),
    )
    // The distribution reads the bands conversation_latency counts per conversation (migration 0014).
    expect(readers.map((query) => query.where)).toEqual(['voice-latency.json / Slowest turns / A'])
    expect(readers[0]!.rawSql).toMatch(
      /WHERE \(agent_id, event_time, session_id\) IN \(\n\s+SELECT agent_id, event_time, session_id\n\s+FROM voice_analytics\.conversation_latency FINAL/,
    )
    expect(readers[0]!.rawSql).toContain('LIMIT 50 WITH TIES)')
  })
})

describe('Grafana alert rules (provisioning/alerting)', () => {
  const [alerting] = alertProvisioningFiles()

  it('are provisioned in the file the generator writes, apiVersion 1, in a folder', () => {
    expect(alertRulesFile).toBe(`grafana/provisioning/alerting/${alerting!.file}`)
    expect(alerting!.content.apiVersion).toBe(1)
    expect(alerting!.content.groups.map((group) => group.folder)).toEqual(['voice-analytics'])
  })

  it('each rule: unique uid, a condition on its own queries, a ClickHouse query, severity and an actionable summary', () => {
    const rules = alerting!.content.groups.flatMap((group) => group.rules)
    expect(rules.length).toBe(10)
    expect(new Set(rules.map((rule) => rule.uid)).size).toBe(rules.length)
    for (const rule of rules) {
      const refIds = rule.data.map((query) => query.refId)
      expect(refIds, rule.title).toContain(rule.condition)
      // query A decides; any other ClickHouse query is a figure the summary reads ($values.<refId>)
      const clickhouse = rule.data.filter((query) => query.datasourceUid === 'clickhouse')
      expect(clickhouse[0]?.refId, rule.title).toBe('A')
      for (const figure of clickhouse.slice(1))
        expect(rule.annotations.summary, `${rule.title}: figure ${figure.refId}`).toContain(
          `$values.${figure.refId}.Value`,
        )
      for (const query of rule.data.filter((q) => q.datasourceUid === '__expr__'))
        expect(refIds, `${rule.title}: ${query.refId} reads an earlier query`).toContain(
          (query.model as { expression: string }).expression,
        )
      expect(['critical', 'warning']).toContain(rule.labels.severity)
      expect(rule.annotations.summary, rule.title).toMatch(/\b(check|open|list|read|pause|review)\b/i)
    }
  })

  it('thresholds are the values of grafanaAlertThresholds', () => {
    const thresholds = alerting!.content.groups
      .flatMap((group) => group.rules)
      .map(
        (rule) =>
          (
            rule.data.find((query) => query.refId === rule.condition)!.model as {
              conditions: { evaluator: { params: number[] } }[]
            }
          ).conditions[0]!.evaluator.params[0],
      )
    expect(thresholds).toEqual([
      grafanaAlertThresholds.failedRoomsPerAgent,
      grafanaAlertThresholds.testPassRateBelow,
      grafanaAlertThresholds.campaignFailureShareAbove,
      grafanaAlertThresholds.campaignCostPerCompletedCallAbove,
      0, // the regression rule: an excess share above 0 (its regression* thresholds are in its query)
      grafanaAlertThresholds.deadAirShareAbove,
      grafanaAlertThresholds.bargeInsPerAgentTurnAbove,
      grafanaAlertThresholds.latencyAboveSeconds,
      grafanaAlertThresholds.latencyAboveSeconds,
      grafanaAlertThresholds.latencyAboveSeconds,
    ])
  })

  it('the latency percentile rules: the configured quantile, judged only with enough turns (HAVING count() >= N)', () => {
    const rules = alerting!.content.groups
      .flatMap((group) => group.rules)
      .filter((rule) => rule.uid.includes('-latency-'))
    expect(rules.map((rule) => rule.title)).toEqual([
      'Agent p90 latency high (ClickHouse)',
      'Campaign p90 latency high (ClickHouse)',
      'Telecom provider p90 latency high (ClickHouse)',
    ])
    for (const rule of rules) {
      const { rawSql } = rule.data.find((query) => query.datasourceUid === 'clickhouse')!.model as {
        rawSql: string
      }
      expect(rawSql, rule.title).toContain(`quantileExact(${grafanaAlertThresholds.latencyQuantile})(`)
      expect(rawSql, rule.title).toMatch(
        new RegExp(`\\nHAVING count\\(\\) >= ${grafanaAlertThresholds.latencyMinTurns}$`),
      )
      expect(rule.data.find((query) => query.datasourceUid === 'clickhouse')!.relativeTimeRange.from).toBe(
        grafanaAlertThresholds.latencyWindowMinutes * 60,
      )
    }
  })
})
