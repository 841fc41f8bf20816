import type { FigureName } from './call-figures.ts'
import type { Estimate } from './interval-estimates.ts'
import type { SetChange } from './version-changes.ts'
import type { AgentReport, VersionChangeReport } from './versions-report.ts'

// How `versions` prints its report: a readable text per agent (its versions, then each change with
// what changed and a table of the figures before and after), or JSON with ISO times. Pure.

const iso = (ms: number) => new Date(ms).toISOString()
const minute = (ms: number) => `${iso(ms).slice(0, 16).replace('T', ' ')}`

const figureLabels: Record<FigureName, { label: string; show: (value: number) => string }> = {
  e2e_latency_p50_s: { label: 'e2e latency p50, median call (ms)', show: (s) => (s * 1000).toFixed(0) },
  e2e_latency_p95_s: { label: 'e2e latency p95, median call (ms)', show: (s) => (s * 1000).toFixed(0) },
  llm_ttft_p50_s: { label: 'LLM TTFT p50, median call (ms)', show: (s) => (s * 1000).toFixed(0) },
  tts_ttfb_p50_s: { label: 'TTS TTFB p50, median call (ms)', show: (s) => (s * 1000).toFixed(0) },
  failed_room_rate: { label: 'failed rooms (%)', show: (p) => (p * 100).toFixed(1) },
  test_pass_rate: { label: 'tests passed (%)', show: (p) => (p * 100).toFixed(1) },
  cost_per_call: { label: 'cost per call', show: (c) => c.toFixed(4) },
  dead_air_call_rate: { label: 'calls with dead air (%)', show: (p) => (p * 100).toFixed(1) },
  barge_ins_per_agent_turn: { label: 'barge-ins per agent turn', show: (r) => r.toFixed(3) },
}

function estimateText(estimate: Estimate, show: (value: number) => string): string {
  if (estimate.value === null) return '-'
  const end = (value: number | null) => (value === null ? '?' : show(value))
  return `${show(estimate.value)} [${end(estimate.low)}, ${end(estimate.high)}]`
}

const quoted = (items: readonly string[], most = 3) => [
  ...items.slice(0, most).map((item) => `"${item.length > 100 ? `${item.slice(0, 97)}...` : item}"`),
  ...(items.length > most ? [`... ${items.length - most} more`] : []),
]

function setLines(name: string, change: SetChange, quote: boolean): string[] {
  if (change.added.length === 0 && change.removed.length === 0) return []
  const show = (items: readonly string[]) => (quote ? quoted(items) : [items.join(', ')])
  return [
    `  ${name}: +${change.added.length} -${change.removed.length}`,
    ...(change.added.length > 0 ? show(change.added).map((line) => `    + ${line}`) : []),
    ...(change.removed.length > 0 ? show(change.removed).map((line) => `    - ${line}`) : []),
  ]
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  return rows.map((row) =>
    `  ${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}`.trimEnd(),
  )
}

function changeLines(change: VersionChangeReport, warned: boolean): string[] {
  const lines = [
    `Change to v${change.version} (${change.fingerprint}), first seen ${minute(change.firstSeenMs)} UTC`,
    ...setLines('instructions (sentences)', change.changed.instructions, true),
    ...setLines('update instructions', change.changed.updateInstructions, true),
    ...setLines('tools', change.changed.tools, false),
    ...setLines('handoff targets', change.changed.handoffTargets, false),
  ]
  if (!change.windows || !change.figures)
    return [
      ...lines,
      warned ? '  no figures (see the warning)' : '  no time before or after it to compare',
      '',
    ]
  const { before, after } = change.windows
  lines.push(
    `  before ${minute(before[0])} - ${minute(before[1])}, after ${minute(after[0])} - ${minute(after[1])} UTC (95 % intervals)`,
  )
  const rows = [['figure', 'before', 'n', 'after', 'n', 'after vs before']]
  for (const [name, { label, show }] of Object.entries(figureLabels)) {
    const figure = change.figures[name as FigureName]
    if (figure.before.n === 0 && figure.after.n === 0) continue
    rows.push([
      label,
      estimateText(figure.before, show),
      String(figure.before.n),
      estimateText(figure.after, show),
      String(figure.after.n),
      figure.comparison === 'unclear' ? 'no clear change' : figure.comparison,
    ])
  }
  return [...lines, ...table(rows), '']
}

export function versionsText(reports: readonly AgentReport[]): string {
  if (reports.length === 0) return 'No conversations with an agent configuration (fingerprint) found.\n'
  const lines: string[] = []
  for (const report of reports) {
    lines.push(`Agent ${report.agentName ?? '(no name)'} (${report.agentId})`)
    if (report.warning) lines.push(`  warning: ${report.warning}`)
    lines.push(
      ...table(
        report.versions.map((version) => [
          `v${version.number}`,
          `${minute(version.firstSeenMs)} - ${minute(version.lastSeenMs)}`,
          `${version.conversations} calls`,
          `${version.fingerprints.length} fingerprint(s)`,
          `tools: ${version.content.tools.join(', ') || '-'}`,
        ]),
      ),
      '',
    )
    for (const change of report.changes) lines.push(...changeLines(change, report.warning !== null))
  }
  return `${lines.join('\n')}\n`
}

/** The report as JSON: times as ISO 8601. */
export function versionsJson(reports: readonly AgentReport[]): string {
  const withTimes = reports.map((report) => ({
    agent_id: report.agentId,
    agent_name: report.agentName,
    warning: report.warning,
    versions: report.versions.map((version) => ({
      version: version.number,
      fingerprints: version.fingerprints,
      first_seen: iso(version.firstSeenMs),
      last_seen: iso(version.lastSeenMs),
      conversations: version.conversations,
      instructions: version.content.instructions,
      update_instructions: version.content.updateInstructions,
      tools: version.content.tools,
      handoff_targets: version.content.handoffTargets,
    })),
    changes: report.changes.map((change) => ({
      version: change.version,
      fingerprint: change.fingerprint,
      first_seen: iso(change.firstSeenMs),
      changed: change.changed,
      windows: change.windows && {
        before: change.windows.before.map(iso),
        after: change.windows.after.map(iso),
      },
      figures: change.figures,
    })),
  }))
  return `${JSON.stringify({ agents: withTimes }, null, 2)}\n`
}
