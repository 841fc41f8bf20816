import { describe, expect, it } from 'vitest'
import { toChartSeries as toChartSeriesIn } from './overview-series.ts'

const day = { from: new Date('2026-11-24T12:00:00Z'), to: new Date('2026-11-25T12:00:00Z') }
const toChartSeries = (result: Parameters<typeof toChartSeriesIn>[0]) => toChartSeriesIn(result, day)

describe('toChartSeries', () => {
  it('makes one series per label and value column, aligned on the sorted times, with gaps as null', () => {
    const chart = toChartSeries({
      meta: [
        { name: 'time', type: 'UInt32' },
        { name: 'agent', type: 'Nullable(String)' },
        { name: 'p50', type: 'Float64' },
        { name: 'p95', type: 'Float64' },
      ],
      data: [
        [120, 'b', 5, 6],
        [60, 'a', 1, 2],
        [120, 'a', 3, 4],
      ],
    })
    expect(chart.x).toEqual([60, 120])
    expect(chart.series).toEqual([
      { name: 'b p50', values: [null, 5] },
      { name: 'b p95', values: [null, 6] },
      { name: 'a p50', values: [1, 3] },
      { name: 'a p95', values: [2, 4] },
    ])
  })
  it('names a single value column by its label, an unlabelled one by its column; quoted 64-bit integers are numbers', () => {
    const labelled = toChartSeries({
      meta: [
        { name: 'time', type: 'UInt32' },
        { name: 'campaign', type: 'String' },
        { name: 'calls', type: 'UInt64' },
      ],
      data: [[60, 'spring', '7']],
    })
    expect(labelled.series).toEqual([{ name: 'spring', values: [7] }])
    const plain = toChartSeries({
      meta: [
        { name: 'time', type: 'UInt32' },
        { name: 'pass_rate', type: 'Nullable(Float64)' },
      ],
      data: [
        [60, null],
        [120, 0.5],
      ],
    })
    expect(plain.series).toEqual([{ name: 'pass_rate', values: [null, 0.5] }])
  })
  it("spans the page's window, not the data: one point today still draws the whole day", () => {
    const chart = toChartSeries({
      meta: [
        { name: 'time', type: 'UInt32' },
        { name: 'calls', type: 'UInt64' },
      ],
      data: [[1_795_600_800, '1']],
    })
    expect(chart.range).toEqual([1_795_521_600, 1_795_608_000])
    expect(chart.x).toEqual([1_795_600_800])
  })
  it('refuses a result without a time column', () => {
    expect(() => toChartSeries({ meta: [{ name: 'calls', type: 'UInt64' }], data: [] })).toThrow(/time/)
  })
})
