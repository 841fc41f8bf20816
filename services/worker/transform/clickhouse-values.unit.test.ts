import { describe, expect, it } from 'vitest'
import { validateConversationComplete } from '../../../core/event/event-validation.ts'
import { checkTimestamp } from '../../../core/event/storable-timestamp.ts'
import { measuredValue, timestampMs } from './clickhouse-values.ts'
import { TransformError } from './transform-error.ts'

// What the ingress accepts, the worker stores: for every edge value, the ingress's validation
// finds no problem exactly when the worker turns the value into a DateTime64 without error.
const edges = [
  '2026-03-01T10:00:00Z',
  '2026-03-01T10:00:00.123456789+05:30',
  '2026-03-01T10:00:00.1234567890Z',
  '2024-02-29T12:00:00Z',
  '2026-02-29T12:00:00Z',
  '2026-02-31T12:00:00Z',
  '2016-12-31T23:59:60Z',
  '1900-01-01T00:00:00Z',
  '1899-12-31T23:59:59.999Z',
  '2299-12-31T23:59:59.999Z',
  '2300-01-01T00:00:00Z',
  '2300-01-01T00:30:00+01:00',
  '2026-03-01T10:00:00',
  '2026-03-01T10:00Z',
]

describe('timestampMs agrees with the ingress', () => {
  it.each(edges)('%s', (value) => {
    const acceptedAtIngress =
      validateConversationComplete({
        event: 'ConversationComplete',
        data: { session_id: '0b6c3d5e-8f1a-4b2c-9d3e-4f5a6b7c8d9e', start_time: value },
      }).length === 0
    let stored: number | null | undefined
    try {
      stored = timestampMs(value, 'data.start_time')
    } catch (error) {
      expect(error).toBeInstanceOf(TransformError)
    }
    expect(stored !== undefined).toBe(acceptedAtIngress)
  })
  it('never shifts an impossible date to another day', () => {
    expect(() => timestampMs('2026-02-31T00:00:00Z', 'data.start_time')).toThrow('no such date: 2026-02-31')
  })
  it('stores milliseconds, sub-millisecond digits truncated', () => {
    expect(timestampMs('2026-03-01T10:00:00.987654321-01:00', 'x')).toBe(Date.UTC(2026, 2, 1, 11, 0, 0, 987))
  })
})

describe('timestampMs takes exactly what checkTimestamp takes', () => {
  // timestampMs decides the common form without checkTimestamp's result object: the same answers,
  // over the edges and many single-character changes of common-form timestamps.
  const variants = (value: string) =>
    [...value].flatMap((_, at) =>
      ['0', '9', '3', '-', ':', 'T', ' ', 'Z', '+', '.', 'x', ''].map(
        (replacement) => value.slice(0, at) + replacement + value.slice(at + 1),
      ),
    )
  const values = [
    ...edges,
    ...variants('2026-03-01T10:00:00.123Z'),
    ...variants('2024-02-29T23:59:59+05:30'),
    ...variants('1901-01-01T00:00:00.5-23:59'),
    ...variants('2298-12-31t23:59:59.123456789z'),
  ]
  it.each(values)('%s', (value) => {
    const check = checkTimestamp(value)
    if (check.ok) expect(timestampMs(value, 'data.start_time')).toBe(check.epochMs)
    else expect(() => timestampMs(value, 'data.start_time')).toThrow(`data.start_time: ${check.problem}`)
  })
})

describe('measuredValue', () => {
  it('rounds to the nearest Float32, as toFloat32 does, and keeps it a Float64', () => {
    expect(measuredValue(0.3335016639487199, 'x')).toBe(0.3335016667842865)
    expect(measuredValue(0.94152978515625, 'x')).toBe(0.9415298104286194)
    expect(measuredValue(0.25, 'x')).toBe(0.25)
    expect(measuredValue(-1.0000000596046448, 'x')).toBe(-1)
    expect(measuredValue(-0, 'x')).toBe(-0)
    expect(measuredValue(null, 'x')).toBeNull()
    expect(measuredValue(undefined, 'x')).toBeNull()
  })

  it('is within 6e-8 of the value, relative', () => {
    for (const value of [1e-6, 0.001234567891, 0.5, 1.23456789, 4.999999, 59.87654321, 3600.123456789]) {
      const stored = measuredValue(value, 'x')!
      expect(Math.abs(stored - value) / value).toBeLessThanOrEqual(2 ** -24)
    }
  })

  it('keeps a magnitude beyond Float32 as it came instead of making it infinite', () => {
    expect(measuredValue(1e39, 'x')).toBe(1e39)
    expect(measuredValue(-1e300, 'x')).toBe(-1e300)
    expect(measuredValue(3.4028234663852886e38, 'x')).toBe(3.4028234663852886e38)
  })

  it('refuses what is not finite, naming the field', () => {
    expect(() => measuredValue(Number.NaN, 'metrics.e2e_latency', 3)).toThrow(TransformError)
    expect(() => measuredValue(Number.POSITIVE_INFINITY, 'metrics.e2e_latency', 3)).toThrow(
      'data.history[3].metrics.e2e_latency',
    )
  })
})
