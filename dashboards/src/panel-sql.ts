// The plain-text parts of the dashboards' SQL (the database name, the re-indenting template
// helper), apart from the Grafana SDK (a dev dependency) so the overview page of `./run dev`
// can build the same SQL at run time (shared-panel-sql.ts).

/** The database of the pipeline's tables (CLICKHOUSE_DATABASE); queries name it explicitly. */
export const database = 'voice_analytics'

/** Marks the continuation lines of a condition list (see clickhouse-filters.ts `and`). */
export const continuationMark = '\u0000'

/**
 * Template literals of SQL, re-indented so the generated JSON stays readable: common indentation
 * removed, and lines of an interpolated condition list aligned with the line they continue.
 */
export function sql(text: string): string {
  const lines = text.replace(/^\n+|\s+$/g, '').split('\n')
  const indent = Math.min(
    ...lines
      .filter((line) => line.trim() && !line.startsWith(continuationMark))
      .map((line) => line.match(/^ */)![0].length),
  )
  let previousIndent = ''
  return lines
    .map((line) => {
      if (line.startsWith(continuationMark)) return previousIndent + line.slice(continuationMark.length)
      const dedented = line.slice(indent)
      previousIndent = dedented.match(/^ */)![0]
      return dedented
    })
    .join('\n')
}
