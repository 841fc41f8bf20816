import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { exposedMetricNames, prometheusSeries, selectedMetricNames } from './promql-names.ts'
import { promtool } from './promtool.ts'
import { promQueries, provisionedDashboards, repoRoot } from './provisioned-queries.ts'

// The Prometheus side, checked with Debian's promtool: the compose config and its rule files
// load, every alert has unit tests that see it fire and stay quiet, the PromQL of every panel
// parses, and every name read by a panel or a rule is exposed by the ingress or the worker (or
// recorded by a rule).
const prometheusDir = join(repoRoot, 'dashboards/prometheus')
const ruleFiles = readdirSync(join(prometheusDir, 'rules'))
  .filter((file) => file.endsWith('.yml'))
  .map((file) => `rules/${file}`)
const testFiles = readdirSync(join(prometheusDir, 'tests'))
  .filter((file) => file.endsWith('.yml'))
  .map((file) => `tests/${file}`)

interface Rule {
  record?: string
  alert?: string
  expr: string
  for?: string
  labels?: Record<string, string>
  annotations?: Record<string, string>
}
const rules: Rule[] = ruleFiles.flatMap((file) =>
  (parse(readFileSync(join(prometheusDir, file), 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap(
    (group) => group.rules,
  ),
)
const alerts = rules.filter((rule) => rule.alert)
const recorded = rules.flatMap((rule) => (rule.record ? [rule.record] : []))

const scratch = mkdtempSync(join(tmpdir(), 'va-promql-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('promtool', () => {
  it('check config: dashboards/prometheus/prometheus.yml and the rule files it loads', () => {
    const result = promtool(['check', 'config', 'prometheus.yml'], prometheusDir)
    expect(result.output).toContain('SUCCESS')
    expect(result.status, result.output).toBe(0)
  })

  it('check rules: every rule file', () => {
    expect(ruleFiles.length).toBeGreaterThanOrEqual(3)
    const result = promtool(['check', 'rules', ...ruleFiles], prometheusDir)
    expect(result.status, result.output).toBe(0)
    expect(result.output.match(/SUCCESS/g)?.length).toBe(ruleFiles.length)
  })

  it('test rules: the unit tests of dashboards/prometheus/tests pass', () => {
    const result = promtool(['test', 'rules', ...testFiles], prometheusDir)
    expect(result.status, result.output).toBe(0)
    expect(result.output.match(/SUCCESS/g)?.length).toBe(testFiles.length)
  })

  it('test rules fails when an alert does not behave as its test expects (the tests can fail)', () => {
    const broken = join(scratch, 'broken.test.yml')
    const test = parse(readFileSync(join(prometheusDir, testFiles[0]!), 'utf8')) as {
      rule_files: string[]
      tests: { alert_rule_test?: { exp_alerts: unknown[] }[] }[]
    }
    test.rule_files = test.rule_files.map((file) => join(prometheusDir, 'tests', file))
    const firing = test.tests.flatMap((t) => t.alert_rule_test ?? []).find((t) => t.exp_alerts.length > 0)!
    firing.exp_alerts = []
    writeFileSync(broken, stringify(test))
    const result = promtool(['test', 'rules', broken])
    expect(result.status).not.toBe(0)
    expect(result.output).toContain('FAILED')
  })
})

describe('alerting rules', () => {
  const tests = testFiles.flatMap((file) =>
    (
      parse(readFileSync(join(prometheusDir, file), 'utf8')) as {
        tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[]
      }
    ).tests.flatMap((test) => test.alert_rule_test ?? []),
  )

  it('each alert is tested firing and not firing', () => {
    expect(alerts.length).toBeGreaterThanOrEqual(12)
    for (const { alert } of alerts) {
      const mine = tests.filter((test) => test.alertname === alert)
      expect(
        mine.some((test) => test.exp_alerts.length > 0),
        `${alert} has a test where it fires`,
      ).toBe(true)
      expect(
        mine.some((test) => test.exp_alerts.length === 0),
        `${alert} has a test where it does not fire`,
      ).toBe(true)
    }
  })

  it('each alert has a severity and a summary saying what to do', () => {
    for (const rule of alerts) {
      expect(['critical', 'warning'], rule.alert).toContain(rule.labels?.severity)
      expect(rule.annotations?.summary?.length ?? 0, `${rule.alert} summary`).toBeGreaterThan(60)
      expect(rule.annotations?.summary, `${rule.alert} summary names an action`).toMatch(
        /\b(check|open|read|list|look|add|restart|fix)\b/i,
      )
    }
  })

  it('alert thresholds come from the parameter rules of parameters.yml', () => {
    const parameters = recorded.filter((name) => name.startsWith('voice_analytics:param:'))
    expect(parameters.length).toBeGreaterThanOrEqual(8)
    for (const parameter of parameters)
      expect(
        rules.some((rule) => rule.alert && rule.expr.includes(parameter)),
        `${parameter} is used by an alert`,
      ).toBe(true)
  })
})

describe('PromQL of the dashboards and rules', () => {
  const panelQueries = provisionedDashboards().flatMap(promQueries)
  // What Grafana substitutes before Prometheus sees the query.
  const grafanaVariables: Record<string, string> = {
    __rate_interval: '1m',
    __interval: '30s',
    __range: '3h',
    agent: '.*',
  }
  const expand = (expr: string) =>
    expr.replace(/\$\{?(\w+)\}?/g, (_, name: string) => {
      if (!(name in grafanaVariables)) throw new Error(`unknown Grafana variable in ${expr}`)
      return grafanaVariables[name]!
    })

  it('every panel query parses (promtool check rules on them as recording rules)', () => {
    expect(panelQueries.length).toBeGreaterThanOrEqual(30)
    const file = join(scratch, 'panels.yml')
    writeFileSync(
      file,
      stringify({
        groups: [
          {
            name: 'dashboard-panels',
            rules: panelQueries.map((query, index) => ({
              record: `panel_query_${index}`,
              expr: expand(query.expr),
            })),
          },
        ],
      }),
    )
    const result = promtool(['check', 'rules', file])
    expect(result.status, result.output).toBe(0)
    expect(result.output).toContain(`SUCCESS: ${panelQueries.length} rules found`)
  })

  it('a query that does not parse is caught', () => {
    const file = join(scratch, 'broken.yml')
    writeFileSync(
      file,
      stringify({ groups: [{ name: 'broken', rules: [{ record: 'x', expr: 'sum(rate(up[5m])' }] }] }),
    )
    expect(promtool(['check', 'rules', file]).status).not.toBe(0)
  })

  it('reads only names the ingress, the worker or the assembler expose, Prometheus makes, or a rule records', async () => {
    const known = new Set([...(await exposedMetricNames()), ...prometheusSeries, ...recorded])
    expect(known).toContain('voice_failed_rooms_total')
    expect(known).toContain('ingress_publish_duration_seconds_bucket')
    const sources = [
      ...panelQueries.map((query) => ({ where: query.where, expr: expand(query.expr) })),
      ...rules.map((rule) => ({ where: rule.record ?? rule.alert!, expr: rule.expr })),
    ]
    for (const { where, expr } of sources)
      for (const name of selectedMetricNames(expr)) expect(known, `${where} reads ${name}`).toContain(name)
  })

  it('the name reader finds selectors and leaves functions, labels and keywords out', () => {
    expect(
      selectedMetricNames(
        'sum by (agent) ((voice_failed_rooms_total * 1 unless voice_failed_rooms_total offset 10m) or increase(x_total{a="b:c"}[10m])) > on() group_left() scalar(p:q)',
      ).sort(),
    ).toEqual(['p:q', 'voice_failed_rooms_total', 'x_total'])
  })
})
