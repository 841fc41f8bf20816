import { describe, expect, it } from 'vitest'
import { intervalFor, timeWindows } from './time-windows.ts'

describe('time windows of the queries benchmark', () => {
  it('gives a day 10 minutes, as the overview page does, and longer ranges coarser steps', () => {
    expect(intervalFor(86_400)).toBe(600)
    expect(intervalFor(7 * 86_400)).toBe(3600)
    expect(intervalFor(30 * 86_400)).toBe(10_800)
    expect(intervalFor(60)).toBe(60)
  })

  it('ends every window at the data end, 24 h, 7 d and 30 d long', () => {
    const end = new Date('2026-11-25T12:00:00Z')
    const windows = timeWindows(end)
    expect(windows.map((window) => window.name)).toEqual(['24 h', '7 d', '30 d'])
    expect(windows.map((window) => (end.getTime() - window.from.getTime()) / 86_400_000)).toEqual([1, 7, 30])
    for (const window of windows) expect(window.to).toEqual(end)
  })
})
