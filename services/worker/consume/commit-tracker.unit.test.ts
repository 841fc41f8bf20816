import { describe, expect, it } from 'vitest'
import { CommitTracker } from './commit-tracker.ts'

// Every ordering of batches done, failed and in flight on one partition, with the offset the
// tracker lets commit (the next offset to read) or the offset it seeks back to.
const p = 't/0'

describe('CommitTracker', () => {
  it('commits after a batch is done: the next offset to read', () => {
    const tracker = new CommitTracker()
    const a = tracker.handedOver(p, '0', '9')
    expect(tracker.done(a)).toEqual({ action: 'commit', offset: '10', from: 0n })
    expect(tracker.inFlight(p)).toBe(0)
  })

  it('done in order: one commit each', () => {
    const tracker = new CommitTracker()
    const a = tracker.handedOver(p, '0', '9')
    const b = tracker.handedOver(p, '10', '19')
    expect(tracker.done(a)).toMatchObject({ action: 'commit', offset: '10' })
    expect(tracker.done(b)).toMatchObject({ action: 'commit', offset: '20' })
  })

  it('a younger batch done first waits; the older one then commits both', () => {
    const tracker = new CommitTracker()
    const a = tracker.handedOver(p, '0', '9')
    const b = tracker.handedOver(p, '10', '19')
    const c = tracker.handedOver(p, '20', '29')
    expect(tracker.done(c)).toEqual({ action: 'none', why: 'waiting_for_older' })
    expect(tracker.done(b)).toEqual({ action: 'none', why: 'waiting_for_older' })
    expect(tracker.done(a)).toEqual({ action: 'commit', offset: '30', from: 0n })
  })

  it('the oldest fails: seek to its first offset; the younger ones commit nothing', () => {
    const tracker = new CommitTracker()
    const a = tracker.handedOver(p, '0', '9')
    const b = tracker.handedOver(p, '10', '19')
    expect(tracker.failed(a)).toEqual({ action: 'seek', offset: '0' })
    expect(tracker.done(b)).toEqual({ action: 'none', why: 'dropped' })
    expect(tracker.failed(b)).toEqual({ action: 'none', why: 'dropped' }) // no second seek
    const again = tracker.handedOver(p, '0', '19')
    expect(tracker.done(again)).toMatchObject({ action: 'commit', offset: '20' })
  })

  it('a younger one fails while an older is in flight: the older still commits, only up to itself', () => {
    const tracker = new CommitTracker()
    const a = tracker.handedOver(p, '0', '9')
    const b = tracker.handedOver(p, '10', '19')
    expect(tracker.failed(b)).toEqual({ action: 'seek', offset: '10' })
    expect(tracker.done(a)).toMatchObject({ action: 'commit', offset: '10' })
    const again = tracker.handedOver(p, '10', '19')
    expect(tracker.done(again)).toMatchObject({ action: 'commit', offset: '20' })
  })

  it('a younger one fails, then the older: seek further back; what was read after the first seek is dropped', () => {
    const tracker = new CommitTracker()
    const a = tracker.handedOver(p, '0', '9')
    const b = tracker.handedOver(p, '10', '19')
    expect(tracker.failed(b)).toEqual({ action: 'seek', offset: '10' })
    const reread = tracker.handedOver(p, '10', '19')
    expect(tracker.failed(a)).toEqual({ action: 'seek', offset: '0' })
    expect(tracker.done(reread)).toEqual({ action: 'none', why: 'dropped' })
    const fromStart = tracker.handedOver(p, '0', '19')
    expect(tracker.done(fromStart)).toMatchObject({ action: 'commit', offset: '20' })
  })

  it('after a seek, a batch fetched before it took effect (beyond the rewind point) is stale, never committed', () => {
    const tracker = new CommitTracker()
    const a = tracker.handedOver(p, '0', '9')
    expect(tracker.failed(a)).toEqual({ action: 'seek', offset: '0' })
    const fetchedBeforeSeek = tracker.handedOver(p, '10', '19')
    expect(tracker.done(fetchedBeforeSeek)).toEqual({ action: 'none', why: 'stale' })
    expect(tracker.failed(fetchedBeforeSeek)).toEqual({ action: 'none', why: 'stale' })
    const reread = tracker.handedOver(p, '0', '9')
    const next = tracker.handedOver(p, '10', '19') // the seek took effect: accepted again
    expect(tracker.done(reread)).toMatchObject({ action: 'commit', offset: '10' })
    expect(tracker.done(next)).toMatchObject({ action: 'commit', offset: '20' })
  })

  it('a commit that fails rewinds to the first offset it covered', () => {
    const tracker = new CommitTracker()
    const a = tracker.handedOver(p, '0', '9')
    const b = tracker.handedOver(p, '10', '19')
    const decision = tracker.done(a)
    expect(decision).toEqual({ action: 'commit', offset: '10', from: 0n })
    expect(tracker.commitFailed(a, 0n)).toEqual({ action: 'seek', offset: '0' })
    expect(tracker.done(b)).toEqual({ action: 'none', why: 'dropped' })
  })

  it('a rebalance revokes the partition: late completions commit nothing; a new assignment starts fresh', () => {
    const tracker = new CommitTracker()
    const a = tracker.handedOver(p, '0', '9')
    const b = tracker.handedOver(p, '10', '19')
    tracker.revoked([p])
    expect(tracker.done(a)).toEqual({ action: 'none', why: 'dropped' })
    expect(tracker.failed(b)).toEqual({ action: 'none', why: 'dropped' })
    const assignedAgain = tracker.handedOver(p, '10', '19')
    expect(tracker.done(assignedAgain)).toMatchObject({ action: 'commit', offset: '20' })
  })

  it('a commit that fails after its partition was revoked and assigned again rewinds nothing', () => {
    const tracker = new CommitTracker()
    const old = tracker.handedOver(p, '100', '199')
    const decision = tracker.done(old)
    expect(decision).toEqual({ action: 'commit', offset: '200', from: 100n })
    // The rebalance withdraws that commit; the partition is read again from its committed offset, 500.
    tracker.revoked([p])
    const reread = tracker.handedOver(p, '500', '599')
    expect(tracker.commitFailed(old, 100n)).toEqual({ action: 'none', why: 'dropped' })
    // The new reading is untouched: no seek back to 100, nothing of it taken for stale.
    const next = tracker.handedOver(p, '600', '699')
    expect(tracker.done(reread)).toMatchObject({ action: 'commit', offset: '600' })
    expect(tracker.done(next)).toMatchObject({ action: 'commit', offset: '700' })
  })

  it('partitions are independent', () => {
    const tracker = new CommitTracker()
    const a = tracker.handedOver('t/0', '0', '9')
    const b = tracker.handedOver('t/1', '0', '4')
    expect(tracker.failed(a)).toEqual({ action: 'seek', offset: '0' })
    expect(tracker.done(b)).toMatchObject({ action: 'commit', offset: '5' })
  })

  it('offsets beyond 2^53 stay exact', () => {
    const tracker = new CommitTracker()
    const a = tracker.handedOver(p, '9007199254740993', '9007199254740999')
    expect(tracker.done(a)).toMatchObject({ action: 'commit', offset: '9007199254741000' })
  })
})
