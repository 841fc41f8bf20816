import { describe, expect, it } from 'vitest'
import { afterJoin, consecutive, noOwnership, ownedSince, sameGeneration } from './group-ownership.ts'

// Which partitions stay owned without a break across the joins of a consumer group.
const join = (memberId: string | null, generationId: number, assigned: string[]) => ({
  memberId,
  generationId,
  assigned: new Set(assigned),
})

describe('group ownership', () => {
  it('the first join gains every partition it is given', () => {
    const first = afterJoin(noOwnership, join('m1', 1, ['t/0', 't/1']), 1)
    expect([...first.since]).toEqual([
      ['t/0', 1],
      ['t/1', 1],
    ])
  })

  it('the next generation keeps what it gives again and gains the rest', () => {
    const first = afterJoin(noOwnership, join('m1', 1, ['t/0', 't/1']), 1)
    const second = afterJoin(first, join('m1', 2, ['t/1', 't/2']), 2)
    expect(second.since.get('t/0')).toBeUndefined()
    expect(second.since.get('t/1')).toBe(1)
    expect(second.since.get('t/2')).toBe(2)
  })

  it('a batch fetched before the partition moved away and came back is not owned', () => {
    let ownership = afterJoin(noOwnership, join('m1', 1, ['t/0']), 1)
    const fetchedUnder = 1
    ownership = afterJoin(ownership, join('m1', 2, []), 2)
    ownership = afterJoin(ownership, join('m1', 3, ['t/0']), 3)
    expect(ownedSince(ownership, 't/0', fetchedUnder)).toBe(false)
    expect(ownedSince(ownership, 't/0', 3)).toBe(true)
  })

  it('a batch of a partition kept over a rebalance stays owned', () => {
    let ownership = afterJoin(noOwnership, join('m1', 4, ['t/0', 't/1']), 1)
    ownership = afterJoin(ownership, join('m1', 5, ['t/0']), 2)
    expect(ownedSince(ownership, 't/0', 1)).toBe(true)
    expect(ownedSince(ownership, 't/1', 1)).toBe(false)
  })

  it('a generation missed (session expired): every partition counts as gained again', () => {
    const first = afterJoin(noOwnership, join('m1', 1, ['t/0']), 1)
    expect(consecutive(first, join('m1', 3, ['t/0']))).toBe(false)
    const after = afterJoin(first, join('m1', 3, ['t/0']), 2)
    expect(after.since.get('t/0')).toBe(2)
    expect(ownedSince(after, 't/0', 1)).toBe(false)
  })

  it('another member id (membership lost and joined anew): every partition counts as gained again', () => {
    const first = afterJoin(noOwnership, join('m1', 1, ['t/0']), 1)
    expect(consecutive(first, join('m2', 2, ['t/0']))).toBe(false)
    expect(afterJoin(first, join('m2', 2, ['t/0']), 2).since.get('t/0')).toBe(2)
  })

  it('consecutive: the same member, the very next generation', () => {
    const first = afterJoin(noOwnership, join('m1', 7, ['t/0']), 1)
    expect(consecutive(first, join('m1', 8, []))).toBe(true)
    expect(consecutive(noOwnership, join('m1', 1, []))).toBe(false)
  })

  it('the same generation told again (the library completes one deduplicated join per caller): nothing moves', () => {
    const first = afterJoin(noOwnership, join('m1', 6, ['t/0', 't/1']), 1)
    const second = afterJoin(first, join('m1', 7, ['t/0', 't/1', 't/2']), 2)
    const toldAgain = afterJoin(second, join('m1', 7, ['t/0', 't/1', 't/2']), 3)
    // Kept since the first join, as before: its batches and commits stay valid.
    expect(ownedSince(toldAgain, 't/0', 1)).toBe(true)
    expect(ownedSince(toldAgain, 't/2', 2)).toBe(true)
    expect(toldAgain).toBe(second)
  })

  it('sameGeneration: the same member and generation only', () => {
    const first = afterJoin(noOwnership, join('m1', 7, ['t/0']), 1)
    expect(sameGeneration(first, join('m1', 7, ['t/0']))).toBe(true)
    expect(sameGeneration(first, join('m1', 8, ['t/0']))).toBe(false)
    expect(sameGeneration(first, join('m2', 7, ['t/0']))).toBe(false)
    expect(sameGeneration(noOwnership, join('m1', 7, ['t/0']))).toBe(false)
  })
})
