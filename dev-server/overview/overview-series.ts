// A time-series result as ClickHouse returns it in JSONCompact (one row per time and label, e.g.
// time, agent, p50, p95, p99) turned into what uPlot draws: one x array (Unix seconds) and one
// y array per label and value column ("agent-a p95"). Pure, so the reshaping is unit-tested.

export interface CompactResult {
  meta: { name: string; type: string }[]
  data: unknown[][]
}

export interface ChartSeries {
  /** The x axis's extent, Unix seconds: the window the page shows, whatever the data covers. */
  range: [number, number]
  /** Unix seconds, ascending. */
  x: number[]
  series: { name: string; values: (number | null)[] }[]
}

const isText = (type: string) => /String|Enum|UUID/.test(type)

/** 64-bit integers arrive quoted; null stays null (a gap in the line). */
function numberOrNull(value: unknown): number | null {
  if (value === null || value === undefined) return null
  const number = Number(value)
  return Number.isFinite(number) ? number : null
}

export function toChartSeries(result: CompactResult, window: { from: Date; to: Date }): ChartSeries {
  const timeIndex = result.meta.findIndex((column) => column.name === 'time')
  if (timeIndex === -1) throw new Error('a chart query needs a "time" column')
  const labels = result.meta.flatMap((column, index) =>
    index !== timeIndex && isText(column.type) ? [index] : [],
  )
  const values = result.meta.flatMap((column, index) =>
    index !== timeIndex && !isText(column.type) ? [index] : [],
  )
  const x = [...new Set(result.data.map((row) => Number(row[timeIndex])))].sort((a, b) => a - b)
  const position = new Map(x.map((time, index) => [time, index]))
  const byName = new Map<string, (number | null)[]>()
  for (const row of result.data) {
    const label = labels.map((index) => String(row[index])).join(' ')
    for (const index of values) {
      const column = result.meta[index]!.name
      const name = label === '' ? column : values.length === 1 ? label : `${label} ${column}`
      let series = byName.get(name)
      if (!series) {
        series = new Array<number | null>(x.length).fill(null)
        byName.set(name, series)
      }
      series[position.get(Number(row[timeIndex]))!] = numberOrNull(row[index])
    }
  }
  const range: [number, number] = [
    Math.floor(window.from.getTime() / 1000),
    Math.floor(window.to.getTime() / 1000),
  ]
  return { range, x, series: [...byName].map(([name, values]) => ({ name, values })) }
}
