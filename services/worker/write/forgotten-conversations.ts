import { emptyTableRows, type TableRows, tableNames } from '../transform/table-rows.ts'

// Conversations that `forget` erased are never stored again: a platform re-delivery or a `replay` of
// the event topic carries them, and the worker drops their rows before each write. Which ones is
// asked of forgotten_sessions (by SHA-256 of the session id, core/privacy/erasure); this
// file is the pure part: the rows of a write without those conversations.

/** Every table's rows of the write, less those of the given conversations. */
export function withoutConversations(rows: TableRows, forgotten: ReadonlySet<string>): TableRows {
  if (forgotten.size === 0) return rows
  const kept = emptyTableRows()
  for (const table of tableNames)
    (kept[table] as Array<{ session_id: string }>).push(
      ...(rows[table] as Array<{ session_id: string }>).filter((row) => !forgotten.has(row.session_id)),
    )
  return kept
}
