import { describe, expect, it } from 'vitest'
import {
  checkTimestamp,
  checkTimestampFully,
  commonFormEpochMs,
  earliestStorableMs,
  latestStorableMs,
  timestampProblem,
} from './storable-timestamp.ts'

// Every edge of the one timestamp definition the ingress and the worker share.
const ms = (iso: string) => new Date(iso).getTime()

describe('checkTimestamp accepts and gives epoch milliseconds', () => {
  it.each([
    ['2026-03-01T10:00:00Z', ms('2026-03-01T10:00:00.000Z')],
    ['2026-03-01T10:00Z', ms('2026-03-01T10:00:00.000Z')],
    ['2026-03-01t10:00:00z', ms('2026-03-01T10:00:00.000Z')],
    ['2026-03-01 10:00:00Z', ms('2026-03-01T10:00:00.000Z')],
    // offsets, with and without the colon, at their extremes
    ['2026-03-01T10:00:00+02:00', ms('2026-03-01T08:00:00.000Z')],
    ['2026-03-01T10:00:00-0530', ms('2026-03-01T15:30:00.000Z')],
    ['2026-03-01T10:00:00+00:00', ms('2026-03-01T10:00:00.000Z')],
    ['2026-03-01T10:00:00-00:00', ms('2026-03-01T10:00:00.000Z')],
    ['2026-03-01T10:00:00+23:59', ms('2026-02-28T10:01:00.000Z')],
    // fractions of 0..9 digits; beyond milliseconds truncated, as DateTime64(3) does
    ['2026-03-01T10:00:00.1Z', ms('2026-03-01T10:00:00.100Z')],
    ['2026-03-01T10:00:00.12Z', ms('2026-03-01T10:00:00.120Z')],
    ['2026-03-01T10:00:00.123Z', ms('2026-03-01T10:00:00.123Z')],
    ['2026-03-01T10:00:00.1239Z', ms('2026-03-01T10:00:00.123Z')],
    ['2026-03-01T10:00:00.12345Z', ms('2026-03-01T10:00:00.123Z')],
    ['2026-03-01T10:00:00.123456Z', ms('2026-03-01T10:00:00.123Z')],
    ['2026-03-01T10:00:00.1234567Z', ms('2026-03-01T10:00:00.123Z')],
    ['2026-03-01T10:00:00.12345678Z', ms('2026-03-01T10:00:00.123Z')],
    ['2026-03-01T10:00:00.999999999Z', ms('2026-03-01T10:00:00.999Z')],
    // real leap days
    ['2024-02-29T00:00:00Z', ms('2024-02-29T00:00:00.000Z')],
    ['2000-02-29T00:00:00Z', ms('2000-02-29T00:00:00.000Z')],
    ['2026-04-30T23:59:59.999Z', ms('2026-04-30T23:59:59.999Z')],
    ['2026-12-31T23:59:59Z', ms('2026-12-31T23:59:59.000Z')],
    // the range's ends, also reached through an offset
    ['1900-01-01T00:00:00Z', earliestStorableMs],
    ['1899-12-31T23:30:00-00:30', earliestStorableMs],
    ['2299-12-31T23:59:59.999Z', latestStorableMs],
    ['2300-01-01T00:59:59.999+01:00', latestStorableMs],
  ])('%s', (text, expected) => expect(checkTimestamp(text)).toEqual({ ok: true, epochMs: expected }))
})

describe('checkTimestamp refuses, naming the problem', () => {
  const shape = 'expected an ISO 8601 date-time with a time zone'
  const range = 'outside 1900..2299 (UTC), the range ClickHouse DateTime64 holds'
  it.each([
    // no zone, no time, not a date-time at all
    ['2026-03-01T10:00:00', shape],
    ['2026-03-01T10:00:00.123', shape],
    ['2026-03-01', shape],
    ['yesterday', shape],
    ['1700000000', shape],
    ['', shape],
    ['2026-03-01T10:00:00.Z', shape],
    ['2026-03-01T10:00:00+2', shape],
    ['+02026-03-01T10:00:00Z', shape],
    [' 2026-03-01T10:00:00Z', shape],
    // more than 9 fraction digits
    ['2026-03-01T10:00:00.1234567890Z', 'more than 9 fraction digits'],
    ['2026-03-01T10:00:00.123456789012Z', 'more than 9 fraction digits'],
    // dates that do not exist are refused, never shifted to the next month
    ['2026-02-31T00:00:00Z', 'no such date: 2026-02-31'],
    ['2026-02-29T00:00:00Z', 'no such date: 2026-02-29'],
    ['1900-02-29T00:00:00Z', 'no such date: 1900-02-29'],
    ['2026-04-31T00:00:00Z', 'no such date: 2026-04-31'],
    ['2026-03-00T00:00:00Z', 'no such date: 2026-03-00'],
    ['2026-03-32T10:00:00Z', 'no such date: 2026-03-32'],
    ['2026-13-01T10:00:00Z', 'no month 13'],
    ['2026-00-01T10:00:00Z', 'no month 00'],
    ['2026-03-01T24:00:00Z', 'no such time of day: 24:00'],
    ['2026-03-01T10:61:00Z', 'no such time of day: 10:61'],
    ['2026-03-01T10:00:61Z', 'no such second: 61'],
    // a leap second: valid UTC, but ClickHouse has no :60
    ['2016-12-31T23:59:60Z', 'leap second (:60) cannot be stored'],
    ['2016-12-31T23:59:60.5Z', 'leap second (:60) cannot be stored'],
    ['2026-03-01T10:00:00+25:00', 'no such offset: +25:00'],
    ['2026-03-01T10:00:00+02:60', 'no such offset: +02:60'],
    // outside DateTime64's range, also when the offset carries it over the edge
    ['1899-12-31T23:59:59.999Z', range],
    ['1900-01-01T00:00:00+00:01', range],
    ['0001-01-01T00:00:00Z', range],
    ['0050-01-01T00:00:00Z', range],
    ['2300-01-01T00:00:00Z', range],
    ['2299-12-31T23:59:59-00:01', range],
    ['9999-12-31T23:59:59Z', range],
  ])('%s', (text, problem) => expect(checkTimestamp(text)).toEqual({ ok: false, problem }))
})

// The common form is decided without the regular expression; these hold that path to the
// full check's answers, on the forms it takes and on every near miss of them.
describe('the common-form path', () => {
  it.each([
    '2026-03-01T10:00:00Z',
    '2026-03-01t10:00:00z',
    '2026-03-01 10:00:00.5Z',
    '2026-03-01T10:00:00.123Z',
    '2026-03-01T10:00:00.123456789+02:00',
    '2024-02-29T23:59:59.999-23:59',
    '1901-01-01T00:00:00+23:59',
    '2298-12-31T23:59:59.999-23:59',
  ])('decides %s itself, as the full check does', (text) => {
    const epochMs = commonFormEpochMs(text, true)
    expect(epochMs).not.toBeNaN()
    expect(checkTimestampFully(text)).toEqual({ ok: true, epochMs })
    expect(checkTimestamp(text)).toEqual({ ok: true, epochMs })
    expect(timestampProblem(text)).toBeUndefined()
  })

  it.each([
    '2026-03-01T10:00Z', // no seconds
    '2026-03-01T10:00:00+0200', // offset without a colon
    '1900-06-01T00:00:00Z', // a year near the range's ends
    '2299-06-01T00:00:00Z',
  ])('leaves %s, another accepted form, to the full check', (text) => {
    expect(commonFormEpochMs(text, true)).toBeNaN()
    expect(checkTimestamp(text).ok).toBe(true)
  })

  // Every one-character change of common-form timestamps, every length cut, plus days across
  // the months and years: the answers (epoch or problem) are the full check's.
  const seeds = [
    '2026-03-01T10:00:00Z',
    '2024-02-29T23:59:59.999+23:59',
    '2000-12-31T00:00:00.123456789-00:30',
    '1901-01-01T00:00:00.1+00:00',
    '2298-12-31T23:59:59Z',
  ]
  const replacements = '0123456789-+:.TtZz x/\u0661'
  const variants = new Set<string>()
  for (const seed of seeds) {
    for (let at = 0; at <= seed.length; at++) {
      variants.add(seed.slice(0, at))
      variants.add(seed.slice(0, at) + seed.slice(at + 1))
      for (const character of replacements) {
        variants.add(seed.slice(0, at) + character + seed.slice(at + 1))
        variants.add(seed.slice(0, at) + character + seed.slice(at))
      }
    }
  }
  for (let year = 1899; year <= 2301; year += 7)
    for (let month = 0; month <= 13; month++)
      for (const day of [0, 1, 28, 29, 30, 31, 32])
        variants.add(
          `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T12:00:00.5-11:30`,
        )

  it(`answers as the full check on ${variants.size} near misses`, () => {
    let decidedByCommonForm = 0
    for (const text of variants) {
      const full = checkTimestampFully(text)
      if (!Number.isNaN(commonFormEpochMs(text, true))) decidedByCommonForm++
      expect({ text, check: checkTimestamp(text) }).toEqual({ text, check: full })
      expect({ text, problem: timestampProblem(text) }).toEqual({
        text,
        problem: full.ok ? undefined : full.problem,
      })
    }
    // Both paths were exercised.
    expect(decidedByCommonForm).toBeGreaterThan(1000)
    expect(decidedByCommonForm).toBeLessThan(variants.size - 1000)
  })
})
