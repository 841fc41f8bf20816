import { type CallFigures, callFigures, type FigureName, figureNames } from './call-figures.ts'
import { type ChangeWindows, comparisonWindows } from './comparison-windows.ts'
import { comparison, type Estimate } from './interval-estimates.ts'
import {
  type AgentVersion,
  agentVersions,
  perCallValuesWarning,
  type WhatChanged,
} from './version-changes.ts'
import { type ReadRows, readCallValues, readContents, readFingerprints } from './versions-queries.ts'

// `versions`: each agent's versions and, for every change, what changed and the figures before and
// after it with their intervals (#32). Reads through `read` (read-only SQL), then only pure steps:
// version-changes.ts, comparison-windows.ts, call-figures.ts.

export interface VersionsOptions {
  agentId?: string
  /** Only changes first seen at or after this (epoch ms). */
  sinceMs?: number
  /** The longest window on either side of a change. */
  maxWindowMs: number
}

export interface FigureComparison {
  before: Estimate
  after: Estimate
  /** after against before: 'higher' / 'lower' only when the intervals do not overlap. */
  comparison: 'higher' | 'lower' | 'unclear'
}

export interface VersionChangeReport {
  version: number
  fingerprint: string
  firstSeenMs: number
  changed: WhatChanged
  windows: ChangeWindows | null
  figures: Record<FigureName, FigureComparison> | null
}

export interface AgentReport {
  agentId: string
  agentName: string | null
  versions: AgentVersion[]
  changes: VersionChangeReport[]
  /** Said when the versions look like per-call values in the instructions (docs/metrics.md). */
  warning: string | null
}

export async function versionsReport(
  read: ReadRows,
  database: string,
  options: VersionsOptions,
): Promise<AgentReport[]> {
  const seen = await readFingerprints(read, database, options.agentId)
  const agents = [...new Set(seen.map((entry) => entry.agentId))]
  const versions = agentVersions(seen, await readContents(read, database, agents))
  const reports: AgentReport[] = []
  for (const agentId of agents) {
    const own = versions.filter((version) => version.agentId === agentId)
    const warning = perCallValuesWarning(seen.filter((entry) => entry.agentId === agentId))
    const windows = comparisonWindows(own, options.maxWindowMs)
    const changes: VersionChangeReport[] = []
    for (const [index, version] of own.slice(1).entries()) {
      if (options.sinceMs !== undefined && version.firstSeenMs < options.sinceMs) continue
      const window = warning ? null : (windows[index] ?? null)
      changes.push({
        version: version.number,
        fingerprint: version.fingerprints[0]!,
        firstSeenMs: version.firstSeenMs,
        changed: version.changed!,
        windows: window,
        figures: window && (await beforeAndAfter(read, database, agentId, window)),
      })
    }
    reports.push({ agentId, agentName: own[0]!.agentName, versions: own, changes, warning })
  }
  return reports
}

async function beforeAndAfter(
  read: ReadRows,
  database: string,
  agentId: string,
  window: ChangeWindows,
): Promise<Record<FigureName, FigureComparison>> {
  const calls = await readCallValues(read, database, agentId, window.before[0], window.after[1])
  const before = callFigures(calls.filter((call) => call.timeMs < window.before[1]))
  const after = callFigures(calls.filter((call) => call.timeMs >= window.after[0]))
  return Object.fromEntries(figureNames.map((name) => [name, compared(before, after, name)])) as Record<
    FigureName,
    FigureComparison
  >
}

const compared = (before: CallFigures, after: CallFigures, name: FigureName): FigureComparison => ({
  before: before[name],
  after: after[name],
  comparison: comparison(before[name], after[name]),
})
