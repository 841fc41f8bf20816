// What Grafana and the ClickHouse plugin (grafana-clickhouse-datasource 4.x) do to a panel's SQL
// before ClickHouse sees it, in their order: $__conditionalAll (plugin, frontend), template
// variables with their formats (Grafana's template service), then the time macros (plugin
// backend, pkg/macros/macros.go). Pure: the tests run the result against ClickHouse, and the
// overview page of `./run dev` (dev-server/overview) runs the panels it shares with Grafana.

/** A variable's selection: '$__all' for All, else the selected values. */
export type Selection = '$__all' | readonly string[]

export interface MacroContext {
  from: Date
  to: Date
  /** The panel's interval ($__interval), in seconds. */
  intervalSeconds: number
  variables: Record<string, Selection>
}

/** The arguments of the macro call whose '(' is at `open`, split at top-level commas (as the plugin does). */
function macroArguments(text: string, open: number): { args: string[]; end: number } {
  const args: string[] = []
  let depth = 0
  let start = open + 1
  for (let index = open; index < text.length; index++) {
    const char = text[index]
    if (char === '(') depth++
    else if (char === ')') depth--
    if (char === ',' && depth === 1) {
      args.push(text.slice(start, index))
      start = index + 1
    }
    if (depth === 0) {
      args.push(text.slice(start, index))
      return { args, end: index + 1 }
    }
  }
  throw new Error(`unbalanced parentheses in a macro call: ${text.slice(open, open + 80)}`)
}

/** $__conditionalAll(condition, $variable): 1=1 when the variable is All or empty. Innermost-last, as the plugin. */
export function expandConditionalAll(text: string, variables: MacroContext['variables']): string {
  const macro = '$__conditionalAll('
  let result = text
  for (let at = result.lastIndexOf(macro); at !== -1; at = result.lastIndexOf(macro)) {
    const { args, end } = macroArguments(result, at + macro.length - 1)
    if (args.length !== 2) throw new Error(`$__conditionalAll takes 2 arguments, got ${args.length}`)
    const name = /\$\{?(\w+)/.exec(args[1]!.trim())?.[1]
    if (!name || !(name in variables))
      throw new Error(`$__conditionalAll names an unknown variable: ${args[1]}`)
    const selection = variables[name]!
    const all = selection === '$__all' || selection.length === 0
    result = result.slice(0, at) + (all ? '1=1' : args[0]) + result.slice(end)
  }
  return result
}

const singleQuote = (value: string) => `'${value.replace(/'/g, "\\'")}'`

/** ${name:format}, ${name} and $name. Formats: singlequote, csv, raw; default as the plugin does for multi-value variables. */
export function expandVariables(
  text: string,
  variables: MacroContext['variables'],
  allValues: Record<string, string[]>,
) {
  return text.replace(/\$\{(\w+)(?::(\w+))?\}|\$(\w+)/g, (match, braced, format, bare) => {
    const name = (braced ?? bare) as string
    if (name.startsWith('__')) return match
    if (!(name in variables)) throw new Error(`unknown template variable $${name}`)
    const selection = variables[name]!
    const values = selection === '$__all' ? (allValues[name] ?? []) : [...selection]
    switch (format ?? 'default') {
      case 'singlequote':
        return values.map(singleQuote).join(',')
      case 'csv':
      case 'raw':
        return values.join(',')
      case 'default':
        return `'${values.join("','")}'`
      default:
        throw new Error(`unsupported variable format ${format}`)
    }
  })
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000)
const isoDate = (date: Date) => date.toISOString().slice(0, 10)

/** The plugin's backend macros, exactly as pkg/macros/macros.go renders them. */
export function expandTimeMacros(
  text: string,
  context: Pick<MacroContext, 'from' | 'to' | 'intervalSeconds'>,
): string {
  const { from, to } = context
  const interval = Math.max(1, Math.floor(context.intervalSeconds))
  const render: Record<string, (args: string[]) => string> = {
    timeFilter: ([column]) =>
      `${column} >= toDateTime(${seconds(from)}) AND ${column} <= toDateTime(${seconds(to)})`,
    timeFilter_ms: ([column]) =>
      `${column} >= fromUnixTimestamp64Milli(${from.getTime()}) AND ${column} <= fromUnixTimestamp64Milli(${to.getTime()})`,
    dateFilter: ([column]) =>
      `${column} >= toDate('${isoDate(from)}') AND ${column} <= toDate('${isoDate(to)}')`,
    timeInterval: ([column]) => `toStartOfInterval(toDateTime(${column}), INTERVAL ${interval} second)`,
    fromTime: () => `toDateTime(${seconds(from)})`,
    toTime: () => `toDateTime(${seconds(to)})`,
    interval_s: () => String(interval),
  }
  let result = ''
  let rest = text
  for (let match = /\$__(\w+)/.exec(rest); match; match = /\$__(\w+)/.exec(rest)) {
    const name = match[1]!
    const macro = render[name]
    if (!macro) throw new Error(`unknown macro $__${name}`)
    const after = match.index + match[0].length
    result += rest.slice(0, match.index)
    if (rest[after] === '(') {
      const { args, end } = macroArguments(rest, after)
      result += macro(args.map((arg) => arg.trim()))
      rest = rest.slice(end)
    } else {
      result += macro([])
      rest = rest.slice(after)
    }
  }
  return result + rest
}

/** Everything Grafana and the plugin do to a panel's SQL; throws on anything left unexpanded. */
export function expandPanelSql(
  rawSql: string,
  context: MacroContext,
  allValues: Record<string, string[]>,
): string {
  const expanded = expandTimeMacros(
    expandVariables(expandConditionalAll(rawSql, context.variables), context.variables, allValues),
    context,
  )
  if (expanded.includes('$')) throw new Error(`unexpanded $ left in:\n${expanded}`)
  return expanded
}
