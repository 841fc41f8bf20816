import type { ConsumedMessage } from '../../../core/kafka/partition-batches.ts'
import type { Delivery } from '../transform/conversation-rows.ts'
import { emptyTableRows, type TableName, type TableRows, tableNames } from '../transform/table-rows.ts'
import { replacedIdentity } from './redelivery-plan.ts'

// The rows of each message of a batch, kept per message (made by the rows step, batch-steps.ts) so
// that a write ClickHouse rejects for its data can be retried message by message; merged per write.
export interface MessageRows {
  delivery: Delivery
  message: ConsumedMessage
  rows: TableRows
}

export function mergeRows(entries: readonly { rows: TableRows }[]): TableRows {
  const merged = emptyTableRows()
  for (const { rows } of entries)
    for (const table of tableNames) (merged[table] as unknown[]).push(...(rows[table] as unknown[]))
  return merged
}

export function rowCounts(rows: TableRows): Record<TableName, number> {
  return Object.fromEntries(tableNames.map((table) => [table, rows[table].length])) as Record<
    TableName,
    number
  >
}

/**
 * The write's rows with one agent-version row per agent and fingerprint: every conversation of a
 * version brings the same row, and a batch of one agent's calls would send its instructions once
 * per call for the table to keep one.
 */
export function oneRowPerVersion(rows: TableRows): TableRows {
  const seen = new Set<string>()
  const kept = rows.agent_versions.filter((row) => {
    const identity = replacedIdentity('agent_versions', row)
    if (seen.has(identity)) return false
    seen.add(identity)
    return true
  })
  return kept.length === rows.agent_versions.length ? rows : { ...rows, agent_versions: kept }
}
