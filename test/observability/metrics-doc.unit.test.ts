import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { exposedMetricNames } from './promql-names.ts'
import { alertProvisioningFiles, repoRoot } from './provisioned-queries.ts'

// docs/metrics.md is the table the README points to: it must name every metric the ingress and
// the worker expose, every Prometheus alert, every threshold parameter and every Grafana rule.
const doc = readFileSync(join(repoRoot, 'docs/metrics.md'), 'utf8')
const ruleFile = (name: string) =>
  parse(readFileSync(join(repoRoot, 'dashboards/prometheus/rules', name), 'utf8')) as {
    groups: { rules: { alert?: string; record?: string; expr: string }[] }[]
  }
const rules = ['parameters.yml', 'voice-analytics.yml', 'pipeline.yml'].flatMap((file) =>
  ruleFile(file).groups.flatMap((group) => group.rules),
)

describe('docs/metrics.md', () => {
  it('lists every metric of the ingress and the worker (not the standard process metrics)', async () => {
    const names = [...(await exposedMetricNames())].filter(
      (name) => !/^(process_|nodejs_)/.test(name) && !/_(bucket|sum|count)$/.test(name),
    )
    expect(names.length).toBeGreaterThanOrEqual(23)
    for (const name of names) expect(doc, name).toContain(`| \`${name}\` |`)
  })

  it('lists every Prometheus alert, and every threshold parameter with its current value', () => {
    for (const rule of rules.filter((r) => r.alert))
      expect(doc, rule.alert).toContain(`| \`${rule.alert}\` |`)
    for (const rule of rules.filter((r) => r.record?.startsWith('voice_analytics:param:'))) {
      const value = /^vector\((.+)\)$/.exec(rule.expr.trim())?.[1]
      expect(doc, `${rule.record} = ${value}`).toContain(`\`${rule.record}\` = ${value}`)
    }
  })

  it('lists every Grafana alert rule', () => {
    for (const { content } of alertProvisioningFiles())
      for (const rule of content.groups.flatMap((group) => group.rules))
        expect(doc, rule.title).toContain(`| ${rule.title} |`)
  })
})
