import { describe, expect, it } from 'vitest'
import {
  parseReplayFrom,
  progressLine,
  ReplayArgumentError,
  replayTotals,
  startOffset,
} from './replay-plan.ts'

describe('replay plan', () => {
  it('reads --from as earliest, an offset or a time', () => {
    expect(parseReplayFrom('earliest')).toEqual({ kind: 'earliest' })
    expect(parseReplayFrom('1200')).toEqual({ kind: 'offset', offset: 1200n })
    expect(parseReplayFrom('2026-03-01T00:00:00Z')).toEqual({
      kind: 'time',
      ms: Date.parse('2026-03-01T00:00:00Z'),
    })
    expect(() => parseReplayFrom('last tuesday')).toThrow(ReplayArgumentError)
  })

  it('starts each partition inside what Kafka still has', () => {
    expect(startOffset({ kind: 'earliest' }, 5n, 90n)).toBe(5n)
    expect(startOffset({ kind: 'offset', offset: 1n }, 5n, 90n)).toBe(5n)
    expect(startOffset({ kind: 'offset', offset: 50n }, 5n, 90n)).toBe(50n)
    expect(startOffset({ kind: 'offset', offset: 500n }, 5n, 90n)).toBe(90n)
    expect(startOffset({ kind: 'time', ms: 0 }, 5n, 90n, 42n)).toBe(42n)
    expect(startOffset({ kind: 'time', ms: 0 }, 5n, 90n, -1n)).toBe(90n)
  })

  it('counts progress against the end offsets seen at the start', () => {
    const ranges = [
      { partition: 0, start: 10n, end: 20n },
      { partition: 1, start: 0n, end: 30n },
    ]
    expect(replayTotals(ranges, new Map())).toEqual({ done: 0n, total: 40n })
    expect(
      replayTotals(
        ranges,
        new Map([
          [0, 15n],
          [1, 99n],
        ]),
      ),
    ).toEqual({ done: 35n, total: 40n })
    expect(progressLine(35n, 40n, 12.4, 8)).toBe('[#######-] 87% 35/40 messages, 12/s')
    expect(progressLine(0n, 0n, 0, 4)).toBe('[####] 100% 0/0 messages, 0/s')
  })
})
