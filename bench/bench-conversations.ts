import { randomUUID } from 'node:crypto'
import type { ConversationCompleteEvent } from '../core/event/conversation-complete.types.ts'
import type { EventCodec } from '../core/event/event-codec.ts'
import { toAvroRecord } from '../core/event/event-record.ts'
import { conversationStream } from '../generator/conversation-generator.ts'
import { conversationRows } from '../services/worker/transform/conversation-rows.ts'
import { emptyTableRows, type TableRows, tableNames } from '../services/worker/transform/table-rows.ts'

// The benchmarks' conversations as the Kafka topic holds them: Avro in the Confluent wire format
// (encoded by the project's codec against the real registry), one Buffer per message. A pool of
// distinct generated conversations is reused with fresh session ids, so N can be large cheaply.
export interface ConversationPool {
  itemsPerConversation: number
  /** The index-th conversation of the backlog (a pool entry with a fresh session id). */
  event(index: number): ConversationCompleteEvent
  /** History items of the index-th conversation. */
  items(index: number): number
}

/** When a pool's conversations happen: their starts spread over `spanHours` from `from` (epoch ms). */
export interface PoolDates {
  from: number
  spanHours: number
}

/** Conversations happening now: started in the last half hour, so the live counters count them. */
export const liveDates = (): PoolDates => ({ from: Date.now() - 30 * 60_000, spanHours: 0.4 })

/** A history, as a user importing old calls sends it: ten years of months, 2015 to 2024. */
export const historyDates: PoolDates = { from: Date.parse('2015-01-01T00:00:00Z'), spanHours: 120 * 730 }

export function conversationPool(size = 4000, seed = 2024, dates: PoolDates = liveDates()): ConversationPool {
  const pool = [...conversationStream({ count: size, seed, historyItems: 40, ...dates })]
  return {
    itemsPerConversation:
      pool.reduce((sum, event) => sum + (event.data.history?.length ?? 0), 0) / pool.length,
    event: (index) => {
      const event = pool[index % pool.length]!
      return { ...event, data: { ...event.data, session_id: randomUUID() } }
    },
    items: (index) => pool[index % pool.length]!.data.history?.length ?? 0,
  }
}

/** Message bytes as the ingress would produce them (received now). */
export function messageBytes(codec: EventCodec, event: ConversationCompleteEvent): Promise<Buffer> {
  return codec.encode(toAvroRecord(event, { source: 'bench', receivedAt: Date.now() }))
}

/** The worker's rows of these conversations under fresh session ids: each write stores new ones. */
export function freshTableRows(pool: readonly ConversationCompleteEvent[]): TableRows {
  const all = emptyTableRows()
  pool.forEach((event, offset) => {
    const copy = { ...event, data: { ...event.data, session_id: randomUUID() } }
    const record = toAvroRecord(copy, { source: 'bench', receivedAt: Date.now() })
    const rows = conversationRows(record, { topic: 'bench', partition: 0, offset, timestampMs: Date.now() })
    for (const table of tableNames) (all[table] as unknown[]).push(...(rows[table] as unknown[]))
  })
  return all
}
