import { describe, expect, it } from 'vitest'
import { createLabelLimit, otherLabelValue, parseLabelList, unknownLabelValue } from './metric-label-limit.ts'

describe('createLabelLimit', () => {
  it('keeps the first `limit` distinct values and folds the rest into other, reporting it once', () => {
    const overflows: string[] = []
    const label = createLabelLimit({ limit: 2, onOverflow: (value) => overflows.push(value) })
    expect(['a', 'b', 'a', 'c', 'b', 'd'].map(label)).toEqual([
      'a',
      'b',
      'a',
      otherLabelValue,
      'b',
      otherLabelValue,
    ])
    expect(overflows).toEqual(['c'])
  })

  it('with an allowlist keeps exactly the listed values, whatever comes first', () => {
    const label = createLabelLimit({ limit: 1, allowlist: ['Billing', 'Support'] })
    expect(['Sales', 'Support', 'Billing', 'billing'].map(label)).toEqual([
      otherLabelValue,
      'Support',
      'Billing',
      otherLabelValue,
    ])
  })

  it('names absent and blank values unknown, trims, and bounds the length of a value', () => {
    const label = createLabelLimit({ limit: 10 })
    expect([null, undefined, '', '   '].map(label)).toEqual(Array(4).fill(unknownLabelValue))
    expect(label('  Agent  ')).toBe('Agent')
    expect(label('x'.repeat(500))).toBe('x'.repeat(64))
  })

  it('a limit of 0 without allowlist puts every value in other', () => {
    const label = createLabelLimit({ limit: 0 })
    expect(label('a')).toBe(otherLabelValue)
    expect(label(null)).toBe(unknownLabelValue)
  })
})

describe('parseLabelList', () => {
  it('splits a comma list, trimming and dropping empty entries', () => {
    expect(parseLabelList(' Billing bot, Support ,,')).toEqual(['Billing bot', 'Support'])
    expect(parseLabelList('')).toEqual([])
  })
})
