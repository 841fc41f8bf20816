import { describe, expect, it } from 'vitest'
import { emptyTableRows, type TableRows } from '../transform/table-rows.ts'
import { divideFirstDeliveries } from './first-deliveries.ts'

/** Rows of a write: one conversation row per delivery, with item and feed rows carrying its session. */
function rowsOf(deliveries: string[]): TableRows {
  const rows = emptyTableRows()
  for (const session of deliveries) {
    ;(rows.conversations as unknown as Array<{ session_id: string }>).push({ session_id: session })
    ;(rows.conversation_items as unknown as Array<{ session_id: string }>).push(
      { session_id: session },
      { session_id: session },
    )
    ;(rows.agent_latency_feed as unknown as Array<{ session_id: string }>).push({ session_id: session })
  }
  return rows
}

const sessionsOf = (rows: TableRows) => ({
  conversations: rows.conversations.map((row) => row.session_id),
  items: rows.conversation_items.map((row) => row.session_id),
  feed: rows.agent_latency_feed.map((row) => row.session_id),
})

describe('divideFirstDeliveries', () => {
  it('a write of conversations never seen is written as it is (the same object, nothing to look up)', () => {
    const rows = rowsOf(['a', 'b'])
    const divided = divideFirstDeliveries(rows, () => false)
    expect(divided.first).toBe(rows)
    expect(divided.lookup.conversations).toEqual([])
  })

  it('known conversations and those delivered twice in the write are looked up, with every row of theirs', () => {
    const divided = divideFirstDeliveries(rowsOf(['a', 'b', 'c', 'b', 'd']), (session) => session === 'c')
    expect(sessionsOf(divided.first)).toEqual({
      conversations: ['a', 'd'],
      items: ['a', 'a', 'd', 'd'],
      feed: ['a', 'd'],
    })
    expect(sessionsOf(divided.lookup)).toEqual({
      conversations: ['b', 'c', 'b'],
      items: ['b', 'b', 'c', 'c', 'b', 'b'],
      feed: ['b', 'c', 'b'],
    })
  })

  it('a write of known conversations only is looked up whole', () => {
    const rows = rowsOf(['a', 'b'])
    const divided = divideFirstDeliveries(rows, () => true)
    expect(divided.lookup).toBe(rows)
    expect(divided.first.conversations).toEqual([])
  })
})
