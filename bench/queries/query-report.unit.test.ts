import { describe, expect, it } from 'vitest'
import { besideLimit, bytes, count, markdownTable, median } from './query-report.ts'

describe('queries benchmark report', () => {
  it('takes the median of odd and even runs, refuses none', () => {
    expect(median([30, 10, 20])).toBe(20)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(() => median([])).toThrow(/nothing/)
  })

  it('prints a figure beside its limit, saying which side it is on', () => {
    expect(besideLimit(812.4, 1000, 'ms')).toBe('812 ms ≤ 1000 ok')
    expect(besideLimit(1000, 1000, 'ms')).toBe('1,000 ms ≤ 1000 ok')
    expect(besideLimit(1532, 1000, 'ms')).toBe('1,532 ms > 1000 OVER')
  })

  it('shortens counts and sizes', () => {
    expect(count(39_800_000)).toBe('39.80M')
    expect(count(4567)).toBe('4.6k')
    expect(count(12)).toBe('12')
    expect(bytes(2048)).toBe('2.00 KiB')
    expect(bytes(5 * 2 ** 30)).toBe('5.00 GiB')
  })

  it('builds a markdown table', () => {
    expect(markdownTable(['a', 'b'], [['1', '2']])).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |')
  })
})
