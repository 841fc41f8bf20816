// What an erasure achieved, from the row counts before and after: the rows removed per table, what
// is left and why, in the words `forget` prints and the audit keeps. Pure.
export type RowCounts = Record<string, number>

export interface ErasureCounts {
  /** Rows of the forgotten conversations per table, before removal. */
  found: RowCounts
  /** The same conversations' rows after removal (a write that raced the removal, for one). */
  remainingOfSessions: RowCounts
  /** Conversations the selector finds now that were not found before: stored after the request. */
  laterSessions: number
  later: RowCounts
}

export interface ErasureVerdict {
  removed: RowCounts
  remaining: RowCounts
  text: string
}

const nonZero = (counts: RowCounts) => Object.entries(counts).filter(([, rows]) => rows > 0)

export function erasureVerdict(counts: ErasureCounts): ErasureVerdict {
  const removed = Object.fromEntries(
    nonZero(counts.found).map(([table, rows]) => [
      table,
      Math.max(0, rows - (counts.remainingOfSessions[table] ?? 0)),
    ]),
  )
  const left = nonZero(counts.remainingOfSessions)
  const later = nonZero(counts.later)
  const remaining: RowCounts = Object.fromEntries(left)
  for (const [table, rows] of later) remaining[`${table} (stored after the request)`] = rows
  const parts: string[] = []
  if (left.length > 0)
    parts.push(
      `rows of forgotten conversations still stored: ${left.map(([table, rows]) => `${table} ${rows}`).join(', ')} (run forget again)`,
    )
  if (later.length > 0)
    parts.push(
      `${counts.laterSessions} conversation(s) of this caller stored after the request (${later
        .map(([table, rows]) => `${table} ${rows}`)
        .join(', ')}): a later call, not removed by this erasure; run forget again to remove it`,
    )
  return { removed, remaining, text: parts.length === 0 ? 'nothing left' : parts.join('; ') }
}
