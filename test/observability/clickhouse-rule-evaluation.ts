import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { expandPanelSql } from '../../dashboards/src/grafana-macros.ts'
import { alertProvisioningFiles } from './provisioned-queries.ts'

// A provisioned Grafana rule on ClickHouse evaluated as Grafana does at a moment: its query A over
// its relative time range ending then, each row an alert instance (string columns its labels, the
// number its value), reduced (last: the value itself) and compared with the threshold C. The rule's
// other queries (the notification's figures) are run too, and their numbers given to each instance
// as Grafana gives them to the templates ($values.<refId>).
type Labels = Record<string, string>

export interface RuleInstance {
  labels: Labels
  value: number
  firing: boolean
  /** The figures' numbers matched to this instance, by the figure query's refId. */
  values: Record<string, number>
}

interface LabelledNumber {
  labels: Labels
  value: number
}

const includes = (outer: Labels, inner: Labels) =>
  Object.entries(inner).every(([name, value]) => outer[name] === value)

/**
 * The number of a query that Grafana's templates see for an instance (its ngalert evaluation): the
 * row with exactly the instance's labels, else one whose labels contain or are contained in them.
 * Pure.
 */
export function matchedValue(instance: Labels, rows: readonly LabelledNumber[]): number | undefined {
  const sameSize = (row: LabelledNumber) => Object.keys(row.labels).length === Object.keys(instance).length
  const exact = rows.find((row) => sameSize(row) && includes(row.labels, instance))
  if (exact) return exact.value
  return rows.find((row) => includes(row.labels, instance) || includes(instance, row.labels))?.value
}

type Evaluator = { type: 'gt' | 'lt' | 'gte' | 'lte'; params: number[] }

/** Whether a value fires under a Grafana threshold evaluator. Pure. */
export function thresholdFires(evaluator: Evaluator, value: number): boolean {
  const [limit] = evaluator.params
  if (limit === undefined) throw new Error('threshold without a parameter')
  if (!Number.isFinite(value)) return false
  switch (evaluator.type) {
    case 'gt':
      return value > limit
    case 'gte':
      return value >= limit
    case 'lt':
      return value < limit
    case 'lte':
      return value <= limit
  }
}

export interface ProvisionedClickHouseRule {
  uid: string
  rawSql: string
  /** Seconds before the evaluation that its query reads. */
  rangeSeconds: number
  evaluator: Evaluator
  /** The rule's other ClickHouse queries: numbers for the notification. */
  figures: { refId: string; rawSql: string }[]
}

function provisionedRule(uid: string) {
  const rule = alertProvisioningFiles()
    .flatMap(({ content }) => content.groups.flatMap((group) => group.rules))
    .find((candidate) => candidate.uid === uid)
  if (!rule) throw new Error(`no provisioned rule ${uid}: run npm run dashboards`)
  return rule
}

/** The summary template of a provisioned rule, as Grafana renders it into the notification. */
export const alertSummary = (uid: string): string => String(provisionedRule(uid).annotations.summary)

export function provisionedClickHouseRule(uid: string): ProvisionedClickHouseRule {
  const rule = provisionedRule(uid)
  const query = rule.data.find((data) => data.refId === 'A')
  const threshold = rule.data.find((data) => data.refId === rule.condition)
  const evaluator = (threshold?.model as { conditions?: { evaluator: Evaluator }[] } | undefined)
    ?.conditions?.[0]?.evaluator
  if (!query || !evaluator) throw new Error(`rule ${uid} has no query A or no threshold condition`)
  const figures = rule.data
    .filter((data) => data.refId !== 'A' && data.datasourceUid !== '__expr__')
    .map((data) => ({ refId: data.refId, rawSql: String(data.model.rawSql) }))
  return {
    uid,
    rawSql: String(query.model.rawSql),
    rangeSeconds: query.relativeTimeRange.from,
    evaluator,
    figures,
  }
}

async function labelledNumbers(client: ClickHouseClient, rawSql: string, rangeSeconds: number, at: Date) {
  const query = expandPanelSql(
    rawSql,
    { from: new Date(at.getTime() - rangeSeconds * 1000), to: at, intervalSeconds: 60, variables: {} },
    {},
  )
  const rows = (await (await client.query({ query, format: 'JSONEachRow' })).json()) as Record<
    string,
    unknown
  >[]
  return rows.map((row): LabelledNumber => {
    const labels: Labels = {}
    let value = Number.NaN
    for (const [column, cell] of Object.entries(row))
      if (typeof cell === 'number') value = cell
      else labels[column] = String(cell)
    return { labels, value }
  })
}

export async function evaluateRule(
  client: ClickHouseClient,
  rule: ProvisionedClickHouseRule,
  at: Date,
): Promise<RuleInstance[]> {
  const rows = await labelledNumbers(client, rule.rawSql, rule.rangeSeconds, at)
  const figures = await Promise.all(
    rule.figures.map(async (figure) => ({
      refId: figure.refId,
      rows: await labelledNumbers(client, figure.rawSql, rule.rangeSeconds, at),
    })),
  )
  return rows.map(({ labels, value }) => {
    const values: Record<string, number> = {}
    for (const figure of figures) {
      const matched = matchedValue(labels, figure.rows)
      if (matched !== undefined) values[figure.refId] = matched
    }
    return { labels, value, firing: thresholdFires(rule.evaluator, value), values }
  })
}
