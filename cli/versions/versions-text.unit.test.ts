import { describe, expect, it } from 'vitest'
import { type CallValues, callFigures, figureNames } from './call-figures.ts'
import { comparison } from './interval-estimates.ts'
import { agentVersions, type ConfigContent, contentKey } from './version-changes.ts'
import type { AgentReport } from './versions-report.ts'
import { versionsJson, versionsText } from './versions-text.ts'

const hour = 3_600_000
const t0 = Date.parse('2026-11-01T00:00:00Z')

function report(): AgentReport {
  const content = (instructions: string, tools: string[]): ConfigContent => ({
    instructions,
    updateInstructions: [],
    tools,
    handoffTargets: [],
  })
  const versions = agentVersions(
    [
      {
        agentId: 'a1',
        agentName: 'Claims',
        fingerprint: 'f1',
        firstSeenMs: t0,
        lastSeenMs: t0 + 9 * hour,
        conversations: 30,
      },
      {
        agentId: 'a1',
        agentName: 'Claims',
        fingerprint: 'f2',
        firstSeenMs: t0 + 10 * hour,
        lastSeenMs: t0 + 20 * hour,
        conversations: 30,
      },
    ],
    new Map([
      [contentKey('a1', 'f1'), content('Be brief.', ['find_policy'])],
      [contentKey('a1', 'f2'), content('Be very brief.', ['find_policy', 'send_link'])],
    ]),
  )
  const calls = (e2e: number): CallValues[] =>
    Array.from({ length: 30 }, (_, i) => ({
      e2eP50: e2e + i / 1000,
      e2eP95: 2 * e2e,
      ttftP50: 0.3,
      ttfbP50: 0.2,
      failed: i === 0,
      testSuccess: null,
      deadAirCount: null,
      callerBargeIns: null,
      agentTurns: 5,
      cost: null,
    }))
  const before = callFigures(calls(0.9))
  const after = callFigures(calls(1.8))
  return {
    agentId: 'a1',
    agentName: 'Claims',
    versions,
    warning: null,
    changes: [
      {
        version: 2,
        fingerprint: 'f2',
        firstSeenMs: t0 + 10 * hour,
        changed: versions[1]!.changed!,
        windows: { before: [t0, t0 + 10 * hour], after: [t0 + 10 * hour, t0 + 20 * hour] },
        figures: Object.fromEntries(
          figureNames.map((name) => [
            name,
            { before: before[name], after: after[name], comparison: comparison(before[name], after[name]) },
          ]),
        ) as NonNullable<AgentReport['changes'][number]['figures']>,
      },
    ],
  }
}

describe('versionsText', () => {
  it('prints the versions, what changed and a row per figure that has calls', () => {
    const text = versionsText([report()])
    expect(text).toContain('Agent Claims (a1)')
    expect(text).toMatch(
      /v1 +2026-11-01 00:00 - 2026-11-01 09:00 +30 calls +1 fingerprint\(s\) +tools: find_policy/,
    )
    expect(text).toContain('Change to v2 (f2), first seen 2026-11-01 10:00 UTC')
    expect(text).toContain('    + "Be very brief."')
    expect(text).toContain('    - "Be brief."')
    expect(text).toContain('  tools: +1 -0\n    + send_link')
    expect(text).toMatch(
      /e2e latency p50, median call \(ms\) +91\d \[\d+, \d+\] +30 +181\d \[\d+, \d+\] +30 +higher/,
    )
    expect(text).toMatch(
      /failed rooms \(%\) +3\.3 \[0\.\d, \d+\.\d\] +30 +3\.3 \[0\.\d, \d+\.\d\] +30 +no clear change/,
    )
    // No test calls, no cost: those figures are left out.
    expect(text).not.toContain('tests passed')
    expect(text).not.toContain('cost per call')
  })

  it('says when there is nothing to list', () => {
    expect(versionsText([])).toMatch(/^No conversations/)
  })
})

describe('versionsJson', () => {
  it('gives times as ISO 8601 and every figure with its interval and calls', () => {
    const json = JSON.parse(versionsJson([report()]))
    expect(json.agents[0].versions[1]).toMatchObject({
      version: 2,
      first_seen: '2026-11-01T10:00:00.000Z',
      tools: ['find_policy', 'send_link'],
    })
    expect(json.agents[0].changes[0].windows.before).toEqual([
      '2026-11-01T00:00:00.000Z',
      '2026-11-01T10:00:00.000Z',
    ])
    expect(json.agents[0].changes[0].figures.e2e_latency_p50_s).toMatchObject({
      before: { n: 30 },
      after: { n: 30 },
      comparison: 'higher',
    })
  })
})
