import { describe, expect, it } from 'vitest'
import { conversationKeyTime } from './conversation-key-time.ts'

describe('conversationKeyTime', () => {
  it('takes start_time first, then created_at', () => {
    expect(conversationKeyTime({ startTime: 5_000, createdAt: 1_000, others: [10] })).toEqual({
      ms: 5_000,
      source: 'start_time',
    })
    expect(conversationKeyTime({ startTime: null, createdAt: 1_000, others: [10] })).toEqual({
      ms: 1_000,
      source: 'created_at',
    })
  })

  it('else the earliest other timestamp, whatever their order', () => {
    const others = [null, 9_000, 7_000, null, 8_000]
    expect(conversationKeyTime({ startTime: null, createdAt: null, others })).toEqual({
      ms: 7_000,
      source: 'earliest_timestamp',
    })
    expect(conversationKeyTime({ startTime: null, createdAt: null, others: [...others].reverse() }).ms).toBe(
      7_000,
    )
  })

  it('else the epoch: the same for every delivery, never the time of receipt', () => {
    expect(conversationKeyTime({ startTime: null, createdAt: null, others: [] })).toEqual({
      ms: 0,
      source: 'none',
    })
    expect(conversationKeyTime({ startTime: null, createdAt: null, others: [null] })).toEqual({
      ms: 0,
      source: 'none',
    })
  })

  it('keeps a timestamp before 1970 (negative milliseconds)', () => {
    expect(conversationKeyTime({ startTime: null, createdAt: null, others: [-5_000, 3] }).ms).toBe(-5_000)
  })
})
