import { describe, expect, it } from 'vitest'
import { toAvroRecord } from '../../../core/event/event-record.ts'
import { loadFixture } from '../../../test/fixtures/index.ts'
import { conversationRows } from '../transform/conversation-rows.ts'
import { mergeRows, oneRowPerVersion } from './batch-rows.ts'

describe('oneRowPerVersion', () => {
  const rowsOf = (sessionId: string, offset: number) => {
    const event = loadFixture('full')
    event.data.session_id = sessionId
    return conversationRows(toAvroRecord(event, { source: 'prod', receivedAt: 1 }), {
      topic: 't',
      partition: 0,
      offset,
      timestampMs: 1,
    })
  }

  it('keeps one version row of calls that ran the same configuration, and every other row', () => {
    const merged = mergeRows([{ rows: rowsOf('s1', 1) }, { rows: rowsOf('s2', 2) }])
    expect(merged.agent_versions).toHaveLength(2)
    const written = oneRowPerVersion(merged)
    expect(written.agent_versions).toEqual([merged.agent_versions[0]])
    expect(written.conversations).toBe(merged.conversations)
    expect(written.conversation_items).toBe(merged.conversation_items)
  })

  it('returns the rows themselves when nothing repeats', () => {
    const rows = rowsOf('s1', 1)
    expect(oneRowPerVersion(rows)).toBe(rows)
  })
})
