import { describe, expect, it } from 'vitest'
import { thresholdFires } from './clickhouse-rule-evaluation.ts'

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
