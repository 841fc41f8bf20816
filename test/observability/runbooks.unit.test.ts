import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { alertRulesFile } from '../../dashboards/src/build-dashboards.ts'
import { repoRoot } from './provisioned-queries.ts'

// Every alert, Prometheus's and Grafana's, has a runbook: its `runbook_url` annotation points at
// a section of docs/alerting.md that exists and says what to check first and how to silence it.
const doc = readFileSync(join(repoRoot, 'docs/alerting.md'), 'utf8')
const rulesDir = join(repoRoot, 'dashboards/prometheus/rules')

interface Rule {
  alert?: string
  title?: string
  uid?: string
  annotations?: Record<string, string>
}
const prometheusAlerts: Rule[] = readdirSync(rulesDir)
  .filter((file) => file.endsWith('.yml'))
  .flatMap((file) =>
    (parse(readFileSync(join(rulesDir, file), 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap(
      (group) => group.rules,
    ),
  )
  .filter((rule) => rule.alert)
const grafanaRules: Rule[] = (
  parse(readFileSync(join(repoRoot, 'dashboards', alertRulesFile), 'utf8')) as { groups: { rules: Rule[] }[] }
).groups.flatMap((group) => group.rules)

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/** The sections of the document by anchor: the text under each heading, up to the next. */
function sections(markdown: string): Map<string, string> {
  const found = new Map<string, string>()
  const parts = markdown.split(/^#{1,6} /m).slice(1)
  for (const part of parts) {
    const newline = part.indexOf('\n')
    found.set(headingAnchor(part.slice(0, newline)), part.slice(newline + 1))
  }
  return found
}
const runbooks = sections(doc)

function expectRunbook(name: string, url: string | undefined) {
  expect(url, `${name} has a runbook_url`).toMatch(/^docs\/alerting\.md#[a-z0-9_-]+$/)
  const anchor = url!.slice(url!.indexOf('#') + 1)
  const section = runbooks.get(anchor)
  expect(section, `docs/alerting.md has a section #${anchor} for ${name}`).toBeDefined()
  expect(section, `${name}: the first things to check`).toMatch(
    /First three things to check:\n\n1\. .+\n2\. .+\n3\. .+/,
  )
  expect(section, `${name}: how to silence it`).toMatch(/amtool silence add .+/)
  expect(section, `${name}: the API form of the silence`).toMatch(/\/api\/v2\/silences/)
}

describe('runbooks', () => {
  it('every Prometheus alert has a runbook_url pointing at its own section', () => {
    expect(prometheusAlerts.length).toBeGreaterThanOrEqual(18)
    for (const rule of prometheusAlerts) {
      expectRunbook(rule.alert!, rule.annotations?.runbook_url)
      expect(rule.annotations!.runbook_url).toBe(`docs/alerting.md#${headingAnchor(rule.alert!)}`)
    }
  })

  it('every Grafana alert rule has a runbook_url pointing at its own section', () => {
    expect(grafanaRules.length).toBeGreaterThanOrEqual(6)
    for (const rule of grafanaRules) {
      expectRunbook(rule.title!, rule.annotations?.runbook_url)
      expect(rule.annotations!.runbook_url).toBe(`docs/alerting.md#${rule.uid}`)
    }
  })

  it('a missing section or a section without its checks is caught', () => {
    expect(runbooks.get('no-such-alert')).toBeUndefined()
    expect(() => expectRunbook('x', 'docs/alerting.md#routing')).toThrow(/first things to check/)
    expect(headingAnchor('Silencing during a planned campaign launch')).toBe(
      'silencing-during-a-planned-campaign-launch',
    )
    expect(headingAnchor('Grafana alert rules (ClickHouse)')).toBe('grafana-alert-rules-clickhouse')
  })
})
