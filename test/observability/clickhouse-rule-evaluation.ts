import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { expandPanelSql } from '../../dashboards/src/grafana-macros.ts'
import { alertProvisioningFiles } from './provisioned-queries.ts'

// A provisioned Grafana rule on ClickHouse evaluated as Grafana does at a moment: its query A over
// its relative time range ending then, each row an alert instance (string columns its labels, the
// number its value), reduced (last: the value itself) and compared with the threshold C.
export interface RuleInstance {
  labels: Record<string, string>
  value: number
  firing: boolean
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
}

export function provisionedClickHouseRule(uid: string): ProvisionedClickHouseRule {
  const rule = alertProvisioningFiles()
    .flatMap(({ content }) => content.groups.flatMap((group) => group.rules))
    .find((candidate) => candidate.uid === uid)
  if (!rule) throw new Error(`no provisioned rule ${uid}: run npm run dashboards`)
  const query = rule.data.find((data) => data.refId === 'A')
  const threshold = rule.data.find((data) => data.refId === rule.condition)
  const evaluator = (threshold?.model as { conditions?: { evaluator: Evaluator }[] } | undefined)
    ?.conditions?.[0]?.evaluator
  if (!query || !evaluator) throw new Error(`rule ${uid} has no query A or no threshold condition`)
  return {
    uid,
    rawSql: String(query.model.rawSql),
    rangeSeconds: query.relativeTimeRange.from,
    evaluator,
  }
}

export async function evaluateRule(
  client: ClickHouseClient,
  rule: ProvisionedClickHouseRule,
  at: Date,
): Promise<RuleInstance[]> {
  const query = expandPanelSql(
    rule.rawSql,
    { from: new Date(at.getTime() - rule.rangeSeconds * 1000), to: at, intervalSeconds: 60, variables: {} },
    {},
  )
  const rows = (await (await client.query({ query, format: 'JSONEachRow' })).json()) as Record<
    string,
    unknown
  >[]
  return rows.map((row) => {
    const labels: Record<string, string> = {}
    let value = Number.NaN
    for (const [column, cell] of Object.entries(row))
      if (typeof cell === 'number') value = cell
      else labels[column] = String(cell)
    return { labels, value, firing: thresholdFires(rule.evaluator, value) }
  })
}
