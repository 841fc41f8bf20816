import { describe, expect, it } from 'vitest'
import { emptyTableRows } from '../transform/table-rows.ts'
import type { MessageRows } from './batch-rows.ts'
import { messagesDigest } from './insert-token.ts'
import { clickHousePartition, offsetRanges, splitByPartition } from './write-split.ts'

function entry(partition: number, offset: number, eventTime: string | undefined): MessageRows {
  const rows = emptyTableRows()
  if (eventTime) (rows.conversations as unknown[]).push({ event_time: Date.parse(eventTime) } as unknown)
  return {
    delivery: { topic: 't', partition, offset, timestampMs: 0 },
    message: { offset: String(offset) } as MessageRows['message'],
    rows,
  }
}

describe('clickHousePartition', () => {
  it('is the UTC month of event_time, as toYYYYMM(event_time)', () => {
    expect(clickHousePartition(entry(0, 1, '2024-03-31T23:59:59.999Z'))).toBe('2024-03')
    expect(clickHousePartition(entry(0, 1, '2024-04-01T00:30:00+01:00'))).toBe('2024-03')
    expect(clickHousePartition(entry(0, 1, undefined))).toBe('none')
  })
})

describe('splitByPartition', () => {
  it('groups messages of one month together, months in order of first appearance', () => {
    const a = entry(0, 1, '2020-01-05T00:00:00Z')
    const b = entry(0, 2, '2021-06-05T00:00:00Z')
    const c = entry(1, 7, '2020-01-20T00:00:00Z')
    expect(splitByPartition([a, b, c])).toEqual([[a, c], [b]])
  })

  it('keeps a write of one partition whole', () => {
    const a = entry(0, 1, '2020-01-05T00:00:00Z')
    const b = entry(0, 2, '2020-01-06T00:00:00Z')
    expect(splitByPartition([a, b])).toEqual([[a, b]])
  })
})

describe('offsetRanges', () => {
  it('joins consecutive offsets of a partition, breaks at gaps and partitions', () => {
    const at = (partition: number, offset: number) => entry(partition, offset, '2020-01-01T00:00:00Z')
    const digest = (...entries: MessageRows[]) => messagesDigest(entries.map((one) => one.message))
    expect(offsetRanges([at(1, 4), at(0, 3), at(0, 1), at(0, 2), at(0, 5), at(1, 5)])).toEqual([
      {
        topic: 't',
        partition: 0,
        firstOffset: '1',
        lastOffset: '3',
        digest: digest(at(0, 1), at(0, 2), at(0, 3)),
      },
      { topic: 't', partition: 0, firstOffset: '5', lastOffset: '5', digest: digest(at(0, 5)) },
      { topic: 't', partition: 1, firstOffset: '4', lastOffset: '5', digest: digest(at(1, 4), at(1, 5)) },
    ])
  })

  it('names one message by its own offset', () => {
    const one = entry(2, 9, undefined)
    expect(offsetRanges([one])).toEqual([
      { topic: 't', partition: 2, firstOffset: '9', lastOffset: '9', digest: messagesDigest([one.message]) },
    ])
  })
})
