// Figures of the queries benchmark as markdown: medians, sizes, each beside its limit. Pure.

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of nothing')
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** 1234567 -> '1.23M', 4567 -> '4.6k', 12 -> '12'. */
export function count(value: number): string {
  if (value >= 1e9) return `${(value / 1e9).toFixed(2)}G`
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)}M`
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`
  return String(Math.round(value))
}

export function bytes(value: number): string {
  if (value >= 2 ** 30) return `${(value / 2 ** 30).toFixed(2)} GiB`
  if (value >= 2 ** 20) return `${(value / 2 ** 20).toFixed(1)} MiB`
  if (value >= 2 ** 10) return `${(value / 2 ** 10).toFixed(2)} KiB`
  return `${Math.round(value)} B`
}

/** '812 ms ≤ 1000 ok' / '1,532 ms > 1000 OVER'. */
export function besideLimit(value: number, limit: number, unit: string): string {
  const shown = Math.round(value).toLocaleString('en-US')
  return value <= limit ? `${shown} ${unit} ≤ ${limit} ok` : `${shown} ${unit} > ${limit} OVER`
}

export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')
}
