import { describe, expect, it } from 'vitest'
import { toAvroRecord } from '../../../core/event/event-record.ts'
import { loadFixture } from '../../../test/fixtures/index.ts'
import { conversationRows } from '../transform/conversation-rows.ts'
import type { ConversationRow, TableRows } from '../transform/table-rows.ts'
import { mergeRows } from './batch-rows.ts'
import {
  type CountedConversation,
  CountOnCommit,
  type MessageSource,
  messageCounts,
  storedByOtherMessages,
} from './count-on-commit.ts'
import { emptyStoredKeys, planWrite } from './redelivery-plan.ts'

// Which message counts which conversation, across lost acknowledgements, rewinds, re-deliveries
// and a partition moving between two workers while its writes are in flight. Each worker is a
// CountOnCommit; "stored" is what a lookup just before a write finds.
type Row = ConversationRow & MessageSource

const message = (session: string, offset: number, partition = 0): Row =>
  ({ session_id: session, kafka_topic: 't', kafka_partition: partition, kafka_offset: offset }) as Row
const counted = (row: Row): CountedConversation => ({ conversation: row, items: [] })

/** A worker's lookup and write of one message: what the rules decide given what is stored. */
function writes(worker: CountOnCommit, row: Row, stored: readonly Row[], lands = true): void {
  const others = storedByOtherMessages([row], stored)
  worker.decided(row, others.has(row.session_id) ? undefined : counted(row))
  if (lands) worker.landed(row)
}
const sessions = (list: CountedConversation[]) => list.map((item) => item.conversation.session_id)

describe('storedByOtherMessages', () => {
  it('nothing stored: nothing is another message', () => {
    expect(storedByOtherMessages([message('a', 1)], [])).toEqual(new Set())
  })

  it('stored by this very message (a read again): not another', () => {
    expect(storedByOtherMessages([message('a', 1)], [message('a', 1)])).toEqual(new Set())
  })

  it("stored by this message and, unmerged, an earlier delivery's rows: another (a re-delivery read again)", () => {
    expect(storedByOtherMessages([message('a', 7)], [message('a', 7), message('a', 2)])).toEqual(
      new Set(['a']),
    )
  })

  it('stored by another delivery (other offset, partition or topic): another', () => {
    const stored = [message('a', 2), message('b', 1, 1), { ...message('c', 1), kafka_topic: 'u' }]
    expect(storedByOtherMessages([message('a', 1), message('b', 1), message('c', 1)], stored)).toEqual(
      new Set(['a', 'b', 'c']),
    )
  })
})

describe('messageCounts', () => {
  const event = loadFixture('web-call')
  // One delivery of the fixture at `offset`, received at `receivedAt` (its version).
  const delivery = (offset: number, receivedAt = 1_000): TableRows =>
    conversationRows(toAvroRecord(event, { source: 'prod', receivedAt }), {
      topic: 't',
      partition: 0,
      offset,
      timestampMs: receivedAt,
    })
  const decide = (rows: TableRows, stored: MessageSource[] = []) =>
    messageCounts(
      rows.conversations,
      planWrite(rows, emptyStoredKeys()).rows,
      stored.map((source) => ({ ...source, session_id: rows.conversations[0]!.session_id })),
    ).map(({ message, counted }) => ({
      offset: message.kafka_offset,
      counted: counted?.conversation.kafka_offset,
      items: counted?.items.length,
    }))

  it('nothing stored: the message counts its conversation, with its turns', () => {
    const rows = delivery(4)
    expect(decide(rows)).toEqual([{ offset: 4, counted: 4, items: rows.conversation_items.length }])
  })

  it('one write carrying the same message twice (read again while in flight): both copies decide to count it', () => {
    const [counted] = decide(delivery(4))
    expect(decide(mergeRows([{ rows: delivery(4) }, { rows: delivery(4) }]))).toEqual([counted, counted])
  })

  it('a re-delivery in the same write: only the newest message counts', () => {
    const rows = mergeRows([{ rows: delivery(4, 1_000) }, { rows: delivery(9, 2_000) }])
    expect(decide(rows).map(({ offset, counted }) => ({ offset, counted }))).toEqual([
      { offset: 4, counted: undefined },
      { offset: 9, counted: 9 },
    ])
  })

  it('stored by this very message: counts; stored by another: does not', () => {
    const source = { kafka_topic: 't', kafka_partition: 0 }
    expect(decide(delivery(4), [{ ...source, kafka_offset: 4 }])[0]!.counted).toBe(4)
    expect(decide(delivery(4), [{ ...source, kafka_offset: 2 }])[0]!.counted).toBeUndefined()
  })
})

describe('CountOnCommit', () => {
  it('counts only once the write landed and the commit covers the offset', () => {
    const worker = new CountOnCommit()
    const m = message('a', 5)
    worker.decided(m, counted(m))
    worker.landed(m)
    expect(worker.committed('t', 0, '5')).toEqual([]) // the commit stops before it
    expect(sessions(worker.committed('t', 0, '6'))).toEqual(['a'])
    expect(worker.committed('t', 0, '6')).toEqual([]) // once
    expect(worker.pending()).toBe(0)
  })

  it('a message whose write never landed (refused, dead-lettered) counts nothing, even committed', () => {
    const worker = new CountOnCommit()
    writes(worker, message('a', 0), [], false)
    expect(worker.committed('t', 0, '1')).toEqual([])
  })

  it('a retry after a lost acknowledgement finds its own rows: the first decision stands, counted once', () => {
    const worker = new CountOnCommit()
    const m = message('a', 0)
    writes(worker, m, [], false) // the write landed, its acknowledgement was lost
    writes(worker, m, [m]) // retried
    expect(sessions(worker.committed('t', 0, '1'))).toEqual(['a'])
  })

  it('a platform re-delivery of a stored conversation counts nothing', () => {
    const worker = new CountOnCommit()
    const first = message('a', 0)
    const again = message('a', 7)
    writes(worker, first, [])
    expect(sessions(worker.committed('t', 0, '1'))).toEqual(['a'])
    writes(worker, again, [first])
    expect(worker.committed('t', 0, '8')).toEqual([])
  })

  it('rewound after a re-delivery was written: the first lookups stand, the conversation counts once', () => {
    const worker = new CountOnCommit()
    const first = message('a', 0)
    const again = message('a', 1)
    writes(worker, first, [])
    writes(worker, again, [first])
    // A failure rewinds the partition: both are read again, the re-delivery's rows now stored.
    writes(worker, first, [again])
    writes(worker, again, [again])
    expect(sessions(worker.committed('t', 0, '2'))).toEqual(['a'])
  })

  describe('a partition moves from worker A to worker B while A writes it', () => {
    const m = message('a', 3)
    const moved = new Set<string>() // A keeps no partition of t

    it("A's write lands before B's lookup: B finds A's rows of the same message and counts it; A not", () => {
      const [a, b] = [new CountOnCommit(), new CountOnCommit()]
      writes(a, m, [])
      a.assigned(moved)
      writes(b, m, [m])
      expect(a.committed('t', 0, '4')).toEqual([]) // a late commit of A's would have been refused anyway
      expect(sessions(b.committed('t', 0, '4'))).toEqual(['a'])
    })

    it("B's lookup before A's write lands: both decide to count, only B's commit counts", () => {
      const [a, b] = [new CountOnCommit(), new CountOnCommit()]
      writes(a, m, [], false)
      writes(b, m, [], false)
      a.landed(m)
      b.landed(m)
      a.assigned(moved)
      expect([...a.committed('t', 0, '4'), ...b.committed('t', 0, '4')].map((c) => c.conversation)).toEqual([
        m,
      ])
    })

    it("A's commit accepted before the rebalance: A counts, B starts after it and never sees it", () => {
      const [a, b] = [new CountOnCommit(), new CountOnCommit()]
      writes(a, m, [])
      expect(sessions(a.committed('t', 0, '4'))).toEqual(['a'])
      a.assigned(moved)
      expect(b.committed('t', 0, '4')).toEqual([])
    })
  })

  it('a batch read again after its commit (a kept partition re-read from the commit) counts nothing more', () => {
    const worker = new CountOnCommit()
    const m = message('a', 3)
    writes(worker, m, []) // the batch of the old generation, in flight at the rebalance
    writes(worker, m, [m]) // the same message, read again from the commit
    expect(sessions(worker.committed('t', 0, '4'))).toEqual(['a'])
    writes(worker, m, [m]) // a third copy, still in flight when the commit landed
    expect(worker.committed('t', 0, '9')).toEqual([])
    expect(worker.pending()).toBe(0)
  })

  it('a partition taken away and given back starts afresh', () => {
    const worker = new CountOnCommit()
    writes(worker, message('a', 0), [])
    expect(sessions(worker.committed('t', 0, '5'))).toEqual(['a'])
    worker.assigned(new Set())
    writes(worker, message('b', 2), []) // not this worker's commit any more: the new owner's decides
    expect(sessions(worker.committed('t', 0, '3'))).toEqual(['b'])
  })

  it('a generation missed while another worker read the partition: what it committed is not counted again', () => {
    const [a, b] = [new CountOnCommit(), new CountOnCommit()]
    const m = message('a', 3)
    writes(a, m, []) // A's write lands; its commit is refused: A missed a generation
    writes(b, m, [m]) // B owned the partition meanwhile: reads it, finds A's rows of the same message
    expect(sessions(b.committed('t', 0, '4'))).toEqual(['a'])
    // A is given the partition again (it never left A's assignment) and reads it from B's commit.
    a.assigned(new Set(['t/0']))
    a.readingFrom('t', 0, '4')
    const next = message('n', 4)
    writes(a, next, [])
    expect(sessions(a.committed('t', 0, '5'))).toEqual(['n'])
  })

  it('read afresh: what was decided from the commit on stays, to be counted by the new reading', () => {
    const worker = new CountOnCommit()
    const m = message('a', 4)
    writes(worker, m, [])
    worker.readingFrom('t', 0, '4')
    writes(worker, m, [m]) // read again
    expect(sessions(worker.committed('t', 0, '5'))).toEqual(['a'])
  })

  it('a rebalance drops only the partitions taken away', () => {
    const worker = new CountOnCommit()
    const kept = message('a', 0, 0)
    const taken = message('b', 0, 1)
    writes(worker, kept, [])
    writes(worker, taken, [])
    worker.assigned(new Set(['t/0']))
    expect(worker.committed('t', 1, '1')).toEqual([])
    expect(sessions(worker.committed('t', 0, '1'))).toEqual(['a'])
  })
})
