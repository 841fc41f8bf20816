import type { AvroRecord } from '../core/event/event-record.ts'
import type { KafkaMessage } from '../core/kafka.ts'
import { conversationRows, type Delivery } from './conversation-rows.ts'
import type { Poison } from './dead-letter.ts'
import { emptyTableRows, type TableName, type TableRows, tableNames } from './table-rows.ts'

// A partition batch of decoded messages -> the rows of each (kept per message, so that a write
// ClickHouse rejects for its data can be retried message by message) and the poison among them.
export interface MessageRows {
  delivery: Delivery
  message: KafkaMessage
  rows: TableRows
}

export function messageRows(
  topic: string,
  partition: number,
  decoded: ReadonlyArray<{ message: KafkaMessage; record: AvroRecord }>,
): { entries: MessageRows[]; poison: Poison[] } {
  const entries: MessageRows[] = []
  const poison: Poison[] = []
  for (const { message, record } of decoded) {
    const delivery: Delivery = {
      topic,
      partition,
      offset: Number(message.offset),
      timestampMs: Number(message.timestamp),
    }
    try {
      entries.push({ delivery, message, rows: conversationRows(record, delivery) })
    } catch (error) {
      poison.push({ message, topic, partition, reason: 'transform_error', error: (error as Error).message })
    }
  }
  return { entries, poison }
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
