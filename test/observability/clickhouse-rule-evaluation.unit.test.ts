import { describe, expect, it } from 'vitest'
import { matchedValue, thresholdFires } from './clickhouse-rule-evaluation.ts'

describe('thresholdFires (Grafana threshold evaluators)', () => {
  it.each([
    ['gt', 1, 1.01, true],
    ['gt', 1, 1, false],
    ['gte', 1, 1, true],
    ['lt', 1, 0.99, true],
    ['lt', 1, 1, false],
    ['lte', 1, 1, true],
  ] as const)('%s %d: %d fires %s', (type, limit, value, fires) => {
    expect(thresholdFires({ type, params: [limit] }, value)).toBe(fires)
  })

  it('never fires on a value that is not a number', () => {
    expect(thresholdFires({ type: 'lt', params: [1] }, Number.NaN)).toBe(false)
  })
})

describe('matchedValue (which number of a figure query the templates see)', () => {
  const instance = { agent: 'billing', version_change: 'a -> b' }
  it('takes the row with exactly the instance labels over a wider match', () => {
    const rows: { labels: Record<string, string>; value: number }[] = [
      { labels: { agent: 'billing' }, value: 1 },
      { labels: { agent: 'billing', version_change: 'a -> b' }, value: 2 },
    ]
    expect(matchedValue(instance, rows)).toBe(2)
  })
  it('takes a row whose labels the instance contains, or that contains them', () => {
    expect(matchedValue(instance, [{ labels: { agent: 'billing' }, value: 3 }])).toBe(3)
    expect(
      matchedValue({ agent: 'billing' }, [{ labels: { agent: 'billing', version_change: '' }, value: 4 }]),
    ).toBe(4)
  })
  it('takes nothing of another agent, or of a different value of a shared label', () => {
    expect(matchedValue(instance, [{ labels: { agent: 'sales' }, value: 5 }])).toBeUndefined()
    expect(
      matchedValue(instance, [{ labels: { agent: 'billing', version_change: 'c -> d' }, value: 6 }]),
    ).toBeUndefined()
  })
})
