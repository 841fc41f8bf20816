import { describe, expect, it } from 'vitest'
import { toAvroRecord } from '../../../core/event/event-record.ts'
import { generateConversations } from '../../../generator/conversation-generator.ts'
import { conversationRows } from '../transform/conversation-rows.ts'
import { tableNames } from '../transform/table-rows.ts'
import { mergeRows, rowCounts } from './batch-rows.ts'
import { withoutConversations } from './forgotten-conversations.ts'

const events = generateConversations({ count: 3, seed: 24, historyItems: 6 })
const rows = mergeRows(
  events.map((event, offset) => ({
    rows: conversationRows(toAvroRecord(event, { source: 'prod', receivedAt: 0 }), {
      topic: 't',
      partition: 0,
      offset,
      timestampMs: 0,
    }),
  })),
)
const ids = events.map((event) => event.data.session_id)

describe('withoutConversations', () => {
  it("drops every table's rows of a forgotten conversation and keeps the others' whole", () => {
    const kept = withoutConversations(rows, new Set([ids[1]!]))
    for (const table of tableNames) {
      const sessions = new Set(kept[table].map((row) => row.session_id))
      expect(sessions.has(ids[1]!), table).toBe(false)
      expect(kept[table].length, table).toBe(rows[table].filter((row) => row.session_id !== ids[1]).length)
    }
    expect(kept.conversations.map((row) => row.session_id)).toEqual([ids[0], ids[2]])
    expect(rowCounts(kept).conversation_items).toBeGreaterThan(0)
  })

  it('leaves the write as it is when nothing is forgotten', () => {
    expect(withoutConversations(rows, new Set())).toBe(rows)
    expect(withoutConversations(rows, new Set(['not-in-this-write']))).toEqual(rows)
  })
})
