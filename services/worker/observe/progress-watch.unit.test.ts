import { describe, expect, it } from 'vitest'
import { ProgressWatch, stallStatus } from './progress-watch.ts'

describe('stallStatus', () => {
  it.each([
    ['idle for an hour', { batchesInFlight: 0, lastProgressMs: 0, failing: [] }, 3_600_000, false, 0],
    [
      'busy, committed 10 s ago',
      { batchesInFlight: 2, lastProgressMs: 50_000, failing: [] },
      60_000,
      false,
      10,
    ],
    [
      'busy, nothing committed for 61 s',
      { batchesInFlight: 1, lastProgressMs: 0, failing: [] },
      61_000,
      true,
      61,
    ],
    ['exactly at the bound', { batchesInFlight: 1, lastProgressMs: 0, failing: [] }, 60_000, false, 60],
  ] as const)('%s', (_name, state, now, stalled, seconds) => {
    const status = stallStatus({ ...state, failing: [...state.failing] }, now, 60)
    expect(status.stalled).toBe(stalled)
    expect(status.secondsWithoutProgress).toBe(seconds)
  })

  it('names the failing dependencies, stalled or not', () => {
    const failing = ['schema_registry'] as const
    expect(stallStatus({ batchesInFlight: 1, lastProgressMs: 0, failing }, 5_000, 60).reason).toBe(
      'retrying schema_registry',
    )
    const stalled = stallStatus({ batchesInFlight: 3, lastProgressMs: 0, failing }, 120_000, 60)
    expect(stalled.stalled).toBe(true)
    expect(stalled.reason).toBe(
      'no offset committed for 120 s with 3 batch(es) in hand: retrying schema_registry',
    )
    expect(
      stallStatus({ batchesInFlight: 0, lastProgressMs: 0, failing: [] }, 5_000, 60).reason,
    ).toBeUndefined()
  })
})

describe('ProgressWatch', () => {
  it('starts the clock when work arrives after idleness, and resets it at each commit', () => {
    let now = 0
    const watch = new ProgressWatch(() => now)
    now = 1_000_000 // idle for a long time: not stalled
    expect(watch.status(60).stalled).toBe(false)
    watch.batchStarted()
    now += 61_000
    expect(watch.status(60)).toMatchObject({ stalled: true, secondsWithoutProgress: 61 })
    watch.committed()
    expect(watch.status(60).stalled).toBe(false)
    watch.batchStarted() // a second batch while one is in hand does not restart the clock
    now += 30_000
    watch.batchStarted()
    now += 31_000
    expect(watch.status(60).stalled).toBe(true)
    watch.batchFinished()
    watch.batchFinished()
    watch.batchFinished()
    expect(watch.status(60)).toMatchObject({ stalled: false, secondsWithoutProgress: 0 })
  })

  it('keeps the failing dependencies until they heal', () => {
    const watch = new ProgressWatch(() => 0)
    watch.dependencyFailing('clickhouse', true)
    watch.dependencyFailing('schema_registry', true)
    watch.dependencyFailing('clickhouse', false)
    expect(watch.status(60).reason).toBe('retrying schema_registry')
  })

  it('is the one place that knows: says whether a report changed anything, tells listeners of changes only', () => {
    const watch = new ProgressWatch(() => 0)
    const heard: string[] = []
    watch.onDependencyChange((dependency, failing) => heard.push(`${dependency} ${failing}`))
    expect(watch.dependencyFailing('clickhouse', true)).toBe(true)
    expect(watch.dependencyFailing('clickhouse', true), 'a retry again').toBe(false)
    expect(watch.dependencyFailing('schema_registry', false), 'was not failing').toBe(false)
    expect(watch.status(60).failing).toEqual(['clickhouse'])
    expect(watch.dependencyFailing('clickhouse', false)).toBe(true)
    expect(heard).toEqual(['clickhouse true', 'clickhouse false'])
    expect(watch.status(60).failing).toEqual([])
  })
})
