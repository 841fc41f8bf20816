import { emptyTableRows, type TableRows, tableNames } from '../transform/table-rows.ts'

// Which conversations of a write need nothing from ClickHouse before their inserts: delivered once
// in the write and unknown to the worker (known-sessions.ts: never stored, never forgotten). Their
// rows are written as they are and each counts once its commit lands. Every other conversation — a
// platform re-delivery, a batch read again after a crash or a rebalance, two deliveries in one
// write, a forgotten one, a 32-bit namesake — is looked up as before (stored-keys.ts,
// redelivery-plan.ts). Pure: the worker holds the known sessions, this only divides the rows.
export interface DividedRows {
  /** First deliveries: written as they are. */
  first: TableRows
  /** The rest: their stored rows are looked up and the plan decides what is written. */
  lookup: TableRows
}

export function divideFirstDeliveries(rows: TableRows, known: (sessionId: string) => boolean): DividedRows {
  const deliveries = new Map<string, number>()
  for (const row of rows.conversations)
    deliveries.set(row.session_id, (deliveries.get(row.session_id) ?? 0) + 1)
  const lookupSessions = new Set<string>()
  for (const [session, count] of deliveries) if (count > 1 || known(session)) lookupSessions.add(session)
  if (lookupSessions.size === 0) return { first: rows, lookup: emptyTableRows() }
  if (lookupSessions.size === deliveries.size) return { first: emptyTableRows(), lookup: rows }
  const first = emptyTableRows()
  const lookup = emptyTableRows()
  for (const table of tableNames)
    for (const row of rows[table] as Array<{ session_id: string }>)
      ((lookupSessions.has(row.session_id) ? lookup : first)[table] as Array<{ session_id: string }>).push(
        row,
      )
  return { first, lookup }
}
