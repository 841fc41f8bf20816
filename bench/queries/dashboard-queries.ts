import type { MacroContext, Selection } from '../../dashboards/src/grafana-macros.ts'
import type { TimeWindow } from './time-windows.ts'

// What the queries benchmark opens each dashboard with: the choices a person who opens it gets by
// default — every query variable on "All", every custom variable (the flagged-values switch) on its
// shipped default, which leaves flagged values out. Pure: the choices are data, unit-tested.

export interface DashboardVariables {
  names: readonly string[]
  custom: readonly { name: string; current: string }[]
}

export function defaultSelections(variables: DashboardVariables): Record<string, Selection> {
  const defaults = new Map(variables.custom.map((variable) => [variable.name, [variable.current]]))
  return Object.fromEntries(variables.names.map((name) => [name, defaults.get(name) ?? '$__all']))
}

export function macroContext(window: TimeWindow, variables: DashboardVariables): MacroContext {
  return {
    from: window.from,
    to: window.to,
    intervalSeconds: window.intervalSeconds,
    variables: defaultSelections(variables),
  }
}

/** The shipped SQL names the pipeline's database; the benchmark keeps each size in a database of its own. */
export function inDatabase(sql: string, shipped: string, database: string): string {
  return sql.replace(new RegExp(`\\b${shipped}\\.`, 'g'), `${database}.`)
}
