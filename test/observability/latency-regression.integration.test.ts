import { describe, expect, it } from 'vitest'
import { grafanaAlertThresholds as t } from '../../dashboards/src/grafana-alert-rules.ts'
import { agentNameAt as agentName } from '../../generator/synthetic-world.ts'
import { storeAgentTraffic } from '../support/agent-traffic.ts'
import { migratedEmbeddedDatabase } from '../support/embedded-clickhouse.ts'
import { alertSummary, evaluateRule, provisionedClickHouseRule } from './clickhouse-rule-evaluation.ts'

// The latency regression rule as provisioned (its query and threshold from the YAML), judged on
// generated calls of four agents at 100 calls an hour each, stored the way the worker stores them:
// - the first changes its instructions 30 minutes ago, and its answers take 300 ms longer since;
// - the second changes its instructions then too, with no effect;
// - the third keeps its version but has answered 400 ms slower for 2 hours (a slower model host);
// - the fourth changes nothing.
const hour = 3600_000
const now = Math.floor(Date.now() / 60_000) * 60_000
const changedAt = now - 30 * 60_000
const stretches = [
  { from: now - 7 * hour, hours: 7 },
  ...Array.from({ length: t.regressionBaselineWeeks }, (_, week) => ({
    from: now - (week + 1) * 7 * 24 * hour - 70 * 60_000,
    hours: 75 / 60,
  })),
]
const opened = migratedEmbeddedDatabase('latency-regression')

describe('the latency regression rule (Grafana, ClickHouse)', () => {
  it('fires for the change that made an agent slower, names it, and for nothing else', async () => {
    await storeAgentTraffic(opened.client, {
      agents: 4,
      callsPerAgentHour: 100,
      stretches,
      seed: 32,
      versionChanges: [
        { agentIndex: 0, at: changedAt, instruction: 'Always offer a callback.', addedSeconds: 0.3 },
        { agentIndex: 1, at: changedAt, instruction: 'Always offer a callback.', addedSeconds: 0 },
        // no new instruction: the same version (the fingerprint ignores spacing), only slower
        { agentIndex: 2, at: now - 2 * hour, instruction: '', addedSeconds: 0.4 },
      ],
    })
    const rule = provisionedClickHouseRule('voice-agent-regression-clickhouse')
    const instances = await evaluateRule(opened.client, rule, new Date(now))
    const of = (index: number) => instances.find((instance) => instance.labels.agent === agentName(index))

    expect(of(0), 'the slower new version').toMatchObject({ firing: true })
    expect(of(0)!.labels.version_change).toMatch(
      /^[0-9a-f]{16} -> [0-9a-f]{16} at \d{4}-\d\d-\d\d \d\d:\d\d UTC, p50 [\d.]+ s, p95 [\d.]+ s before over \d+ calls$/,
    )

    // the notification's figures after the change (queries D and E), beside those before in the label
    const before = of(0)!
      .labels.version_change!.match(/p50 ([\d.]+) s, p95 ([\d.]+) s/)!
      .slice(1)
      .map(Number)
    expect(of(0)!.values.D! - before[0]!, 'p50 after minus before').toBeGreaterThan(0.15)
    expect(of(0)!.values.E! - before[1]!, 'p95 after minus before').toBeGreaterThan(0.15)
    expect(of(0)!.values.E!).toBeLessThan(before[1]! + 0.6)
    for (const instance of instances)
      expect(Object.keys(instance.values).sort(), `figures of ${instance.labels.agent}`).toEqual(['D', 'E'])

    expect(of(1), 'the new version without effect').toMatchObject({ firing: false })
    expect(of(1)!.labels.version_change).not.toBe('')

    expect(of(2), 'the same version, slower than the same hour of past weeks').toMatchObject({
      firing: true,
      labels: { version_change: '' },
    })
    expect(of(3), 'the agent that changed nothing').toMatchObject({
      firing: false,
      labels: { version_change: '' },
    })
  })

  it('has a figure query for every $values its notification reads', () => {
    const rule = provisionedClickHouseRule('voice-agent-regression-clickhouse')
    const summary = alertSummary('voice-agent-regression-clickhouse')
    const read = [...summary.matchAll(/\$values\.(\w+)\.Value/g)].map((match) => match[1])
    expect(new Set(read)).toEqual(new Set(['B', ...rule.figures.map((figure) => figure.refId)]))
  })

  it('judges nothing with fewer calls than its guard: 20 minutes after a change', async () => {
    const rule = provisionedClickHouseRule('voice-agent-regression-clickhouse')
    const early = await evaluateRule(opened.client, rule, new Date(changedAt + 10 * 60_000))
    // 10 minutes of the new version are ~17 calls, under regressionMinRecentCalls
    expect(t.regressionMinRecentCalls).toBeGreaterThan(17)
    expect(early.find((instance) => instance.labels.agent === agentName(0))).toBeUndefined()
  })
})
