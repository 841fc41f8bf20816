import { describe, expect, it } from 'vitest'
import { guardedCommit } from './guarded-commit.ts'

// A commit reports what Kafka accepted: the library reads `offsets` once per attempt it writes.
const entry = (partition: number) => ({ topic: 't', partition, offset: 10n, leaderEpoch: -1 })
/** What the library does: reads the offsets as it writes an attempt. */
const writeAttempt = (request: { offsets: unknown[] }) => [...request.offsets]

describe('guardedCommit', () => {
  it('written under the generation whose assignment is known: carried', () => {
    const commit = guardedCommit([entry(0)], () => true)
    expect(writeAttempt(commit.request)).toEqual([entry(0)])
    expect(commit.carried()).toBe(true)
  })

  it('written while the library knows a newer generation than its assignment: withdrawn, not carried', () => {
    // The broker would accept it once the rebalance completes, whoever then owns the partition.
    const commit = guardedCommit([entry(0)], () => false)
    expect(writeAttempt(commit.request)).toEqual([])
    expect(commit.carried()).toBe(false)
  })

  it('the generation is judged when the first attempt is written, not before and not again', () => {
    let known = false
    const commit = guardedCommit([entry(0)], () => known)
    known = true // the join arrived before the library wrote the commit
    expect(writeAttempt(commit.request)).toEqual([entry(0)])
    known = false // a later read (the library's own bookkeeping after the answer) changes nothing
    expect(writeAttempt(commit.request)).toEqual([entry(0)])
    expect(commit.carried()).toBe(true)
  })

  it('a join that did not keep a partition withdraws it from the retry after the rejoin', () => {
    const commit = guardedCommit([entry(0), entry(1)], () => true)
    expect(writeAttempt(commit.request)).toHaveLength(2) // refused for the rebalance
    commit.withdraw((kept) => kept.partition === 1)
    expect(writeAttempt(commit.request)).toEqual([entry(1)]) // the retry
    expect(commit.carried()).toBe(true)
    commit.withdraw(() => false)
    expect(writeAttempt(commit.request)).toEqual([])
    expect(commit.carried()).toBe(false)
  })

  it('withdrawn before the first attempt is written: nothing is written', () => {
    const commit = guardedCommit([entry(0)], () => true)
    commit.withdraw(() => false)
    expect(writeAttempt(commit.request)).toEqual([])
    expect(commit.carried()).toBe(false)
  })
})
