import { describe, expect, it } from 'vitest'
import { type PriceRow, PriceRuleError, parsePriceTime } from './price-row.ts'
import { checkPriceChanges, validUntil } from './price-rules.ts'

const day = (date: string) => Date.parse(`${date}T00:00:00Z`)
const twilio = (from: string, price = '0.010000', to?: string): PriceRow => ({
  component: 'telephony',
  telecom_provider: 'Twilio',
  direction: '',
  agent_id: '',
  unit: 'minute',
  price,
  currency: 'EUR',
  valid_from: day(from),
  valid_to: to === undefined ? undefined : day(to),
  note: '',
})
const change = (row: PriceRow, origin = 'line 2') => ({ row, origin })
const refusal = (existing: PriceRow[], added: ReturnType<typeof change>[]) => {
  try {
    checkPriceChanges(existing, added)
  } catch (error) {
    expect(error).toBeInstanceOf(PriceRuleError)
    return (error as Error).message
  }
  throw new Error('not refused')
}

describe('checkPriceChanges', () => {
  it('takes a price change: a later price of the same key ends the open one', () => {
    expect(() =>
      checkPriceChanges([twilio('2026-01-01')], [change(twilio('2026-03-01', '0.02'))]),
    ).not.toThrow()
    const rows = [twilio('2026-01-01'), twilio('2026-03-01')]
    expect([...validUntil(rows).values()]).toEqual([day('2026-03-01'), undefined])
  })

  it('refuses a second price of one key from the same time, naming both', () => {
    expect(refusal([twilio('2026-01-01')], [change(twilio('2026-01-01', '0.02'), 'line 7')])).toBe(
      'line 7: telephony Twilio either direction already has a price from 2026-01-01T00:00:00.000Z ' +
        '(the stored price from 2026-01-01T00:00:00.000Z); a price change starts at another time',
    )
    expect(
      refusal([], [change(twilio('2026-01-01'), 'line 2'), change(twilio('2026-01-01'), 'line 3')]),
    ).toContain('line 3: telephony Twilio either direction already has a price')
  })

  it('refuses a price that starts before the valid_to of the one before it', () => {
    expect(refusal([twilio('2026-01-01', '0.01', '2026-03-01')], [change(twilio('2026-02-01'))])).toBe(
      'line 2: telephony Twilio either direction from 2026-02-01T00:00:00.000Z overlaps the stored ' +
        'price from 2026-01-01T00:00:00.000Z, valid until 2026-03-01T00:00:00.000Z',
    )
    // Ending exactly where the next starts is no overlap.
    expect(() =>
      checkPriceChanges([twilio('2026-01-01', '0.01', '2026-03-01')], [change(twilio('2026-03-01'))]),
    ).not.toThrow()
    // A new price whose valid_to runs past a stored one's start.
    expect(refusal([twilio('2026-03-01')], [change(twilio('2026-01-01', '0.01', '2026-04-01'))])).toBe(
      'line 2: telephony Twilio either direction from 2026-01-01T00:00:00.000Z until 2026-04-01T00:00:00.000Z ' +
        'overlaps the stored price from 2026-03-01T00:00:00.000Z',
    )
  })

  it('keys apart do not overlap: another provider, direction or agent', () => {
    const outbound = { ...twilio('2026-01-01'), direction: 'outbound' as const }
    const telnyx = { ...twilio('2026-01-01'), telecom_provider: 'Telnyx' }
    expect(() =>
      checkPriceChanges([twilio('2026-01-01')], [change(outbound), change(telnyx, 'line 3')]),
    ).not.toThrow()
  })

  it('refuses a second currency', () => {
    expect(refusal([twilio('2026-01-01')], [change({ ...twilio('2026-02-01'), currency: 'USD' })])).toBe(
      "prices are kept in one currency, since a call's components are added up: the table holds EUR, the new prices name USD",
    )
  })

  it('refuses a row that is wrong on its own, with every problem', () => {
    const bad: PriceRow = {
      ...twilio('2026-01-01'),
      unit: 'turn',
      price: '-1',
      currency: 'euro',
      agent_id: 'a1',
    }
    expect(refusal([], [change(bad, 'line 4')]).split('\n')).toEqual([
      'line 4: telephony is priced per minute, got "turn"',
      'line 4: telephony is priced by telecom_provider, not by agent_id',
      'line 4: price must be a non-negative decimal with at most 6 fraction digits, got "-1"',
      'line 4: currency must be a three-letter code such as EUR, got "euro"',
    ])
    const stt: PriceRow = { ...twilio('2026-01-01'), component: 'stt', valid_to: day('2025-01-01') }
    expect(refusal([], [change(stt)]).split('\n')).toEqual([
      'line 2: stt is priced by agent_id, not by telecom_provider or direction',
      'line 2: valid_to must be after valid_from',
    ])
    expect(refusal([], [change({ ...twilio('2026-01-01'), price: '0.1234567' })])).toContain(
      'at most 6 fraction digits',
    )
  })
})

describe('parsePriceTime', () => {
  it('reads a date as midnight UTC and a date-time only with its zone', () => {
    expect(parsePriceTime('2026-03-01', 'valid_from')).toBe(day('2026-03-01'))
    expect(parsePriceTime('2026-03-01T12:00:00+02:00', 'valid_from')).toBe(Date.parse('2026-03-01T10:00:00Z'))
    expect(() => parsePriceTime('2026-03-01 12:00', 'valid_from')).toThrow(
      'valid_from must be a date (2026-01-01) or an ISO 8601 date-time with a zone, got "2026-03-01 12:00"',
    )
    expect(() => parsePriceTime('2026-02-30', 'valid_to')).toThrow('valid_to must be a date')
  })
})
