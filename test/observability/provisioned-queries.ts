import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Dashboard, Panel, VariableModel } from '@grafana/grafana-foundation-sdk/dashboard'
import { parse } from 'yaml'

// Every query Grafana would run, read from the committed provisioning files (what `docker compose
// up` loads), not from the code that generates them.
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url))
export const dashboardsDir = join(repoRoot, 'dashboards/grafana/dashboards')
export const alertRulesDir = join(repoRoot, 'dashboards/grafana/provisioning/alerting')

export interface ProvisionedDashboard {
  file: string
  dashboard: Dashboard
}

export function provisionedDashboards(): ProvisionedDashboard[] {
  return readdirSync(dashboardsDir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      file,
      dashboard: JSON.parse(readFileSync(join(dashboardsDir, file), 'utf8')) as Dashboard,
    }))
}

type Target = Record<string, unknown> & { refId?: string; datasource?: { uid?: string; type?: string } }

export interface ClickHousePanelQuery {
  where: string
  panelType: string
  rawSql: string
  /** 0: time series, 1: table (sqlds formats). */
  format: number
}

export interface ClickHouseVariableQuery {
  where: string
  name: string
  rawSql: string
}

export interface PromQuery {
  where: string
  expr: string
}

const panelsOf = (dashboard: Dashboard) =>
  (dashboard.panels ?? []).filter((panel) => panel.type !== 'row') as Panel[]
const targetsOf = (panel: Panel) => (panel.targets ?? []) as unknown as Target[]
const datasourceUid = (panel: Panel, target: Target) => target.datasource?.uid ?? panel.datasource?.uid

/** The dashboard's ClickHouse annotation queries, as panels of their own (a time, a text, tags). */
function annotationQueries(file: string, dashboard: Dashboard): ClickHousePanelQuery[] {
  const list = (dashboard.annotations?.list ?? []) as {
    name: string
    datasource?: { uid?: string }
    target?: Target
  }[]
  return list
    .filter((annotation) => annotation.datasource?.uid === 'clickhouse' && annotation.target)
    .map((annotation) => ({
      where: `${file} / annotation ${annotation.name}`,
      panelType: 'annotation',
      rawSql: String(annotation.target!.rawSql),
      format: Number(annotation.target!.format),
    }))
}

export function clickhousePanelQueries({ file, dashboard }: ProvisionedDashboard): ClickHousePanelQuery[] {
  return [...panelQueriesOf(file, dashboard), ...annotationQueries(file, dashboard)]
}

function panelQueriesOf(file: string, dashboard: Dashboard): ClickHousePanelQuery[] {
  return panelsOf(dashboard).flatMap((panel) =>
    targetsOf(panel)
      .filter((target) => datasourceUid(panel, target) === 'clickhouse')
      .map((target) => ({
        where: `${file} / ${panel.title} / ${target.refId}`,
        panelType: panel.type,
        rawSql: String(target.rawSql),
        format: Number(target.format),
      })),
  )
}

const variablesOf = (dashboard: Dashboard) => (dashboard.templating?.list ?? []) as VariableModel[]

export function clickhouseVariableQueries({
  file,
  dashboard,
}: ProvisionedDashboard): ClickHouseVariableQuery[] {
  return variablesOf(dashboard)
    .filter((variable) => variable.datasource?.uid === 'clickhouse')
    .map((variable) => ({
      where: `${file} / $${variable.name}`,
      name: variable.name,
      rawSql: String((variable.query as { rawSql?: string }).rawSql),
    }))
}

/** PromQL of panels, and the series selector inside label_values(...) of variables. */
export function promQueries({ file, dashboard }: ProvisionedDashboard): PromQuery[] {
  const panels = panelsOf(dashboard).flatMap((panel) =>
    targetsOf(panel)
      .filter((target) => datasourceUid(panel, target) === 'prometheus')
      .map((target) => ({ where: `${file} / ${panel.title} / ${target.refId}`, expr: String(target.expr) })),
  )
  const variables = variablesOf(dashboard)
    .filter((variable) => variable.datasource?.uid === 'prometheus')
    .map((variable) => {
      const query = String((variable.query as { query?: string }).query)
      const selector = /^label_values\((.+),\s*\w+\)$/.exec(query)?.[1]
      if (!selector) throw new Error(`${file} / $${variable.name}: not a label_values() query: ${query}`)
      return { where: `${file} / $${variable.name}`, expr: selector }
    })
  return [...panels, ...variables]
}

export function variableNames({ dashboard }: ProvisionedDashboard): string[] {
  return variablesOf(dashboard).map((variable) => variable.name)
}

/** Custom (fixed-choice) variables: their offered values and their default, as Grafana opens the dashboard. */
export function customVariables({
  dashboard,
}: ProvisionedDashboard): { name: string; values: string[]; current: string }[] {
  return variablesOf(dashboard)
    .filter((variable) => variable.type === 'custom')
    .map((variable) => ({
      name: variable.name,
      values: (variable.options ?? []).map((option) => String(option.value)),
      current: String(variable.current?.value),
    }))
}

export interface AlertRuleQuery {
  where: string
  rawSql: string
  /** Seconds before now: the window the rule evaluates. */
  from: number
  to: number
}

interface AlertProvisioning {
  apiVersion: number
  groups: {
    name: string
    folder: string
    interval: string
    rules: {
      uid: string
      title: string
      condition: string
      data: {
        refId: string
        datasourceUid: string
        relativeTimeRange: { from: number; to: number }
        model: Target
      }[]
      annotations: Record<string, string>
      labels: Record<string, string>
    }[]
  }[]
}

export function alertProvisioningFiles(): { file: string; content: AlertProvisioning }[] {
  return readdirSync(alertRulesDir)
    .filter((file) => /\.ya?ml$/.test(file))
    .sort()
    .map((file) => ({
      file,
      content: parse(readFileSync(join(alertRulesDir, file), 'utf8')) as AlertProvisioning,
    }))
}

export function alertRuleQueries(): AlertRuleQuery[] {
  return alertProvisioningFiles().flatMap(({ file, content }) =>
    content.groups.flatMap((group) =>
      group.rules.flatMap((rule) =>
        rule.data
          .filter((query) => query.datasourceUid === 'clickhouse')
          .map((query) => ({
            where: `${file} / ${rule.title} / ${query.refId}`,
            rawSql: String(query.model.rawSql),
            from: query.relativeTimeRange.from,
            to: query.relativeTimeRange.to,
          })),
      ),
    ),
  )
}
