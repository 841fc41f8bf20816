import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parsePriceCsv, splitCsvLine } from './price-csv.ts'
import { checkPriceChanges } from './price-rules.ts'

describe('parsePriceCsv', () => {
  it('reads the columns in any order, skipping comments and blank lines', () => {
    const changes = parsePriceCsv(
      '# EXAMPLE figures\ncurrency,component,telecom_provider,unit,price,valid_from,note\n\n' +
        'EUR,telephony,Twilio,minute,0.0085,2026-01-01,"per minute, started"\n',
    )
    expect(changes).toEqual([
      {
        origin: 'line 4',
        row: {
          component: 'telephony',
          telecom_provider: 'Twilio',
          direction: '',
          agent_id: '',
          unit: 'minute',
          price: '0.0085',
          currency: 'EUR',
          valid_from: Date.parse('2026-01-01T00:00:00Z'),
          valid_to: undefined,
          note: 'per minute, started',
        },
      },
    ])
  })

  it('refuses a header without the required columns or with unknown ones', () => {
    expect(() => parsePriceCsv('component,price,cost\n')).toThrow(
      'line 1: the header must name the columns component,telecom_provider,direction,agent_id,unit,price,currency,valid_from,valid_to,note; missing: unit, currency, valid_from; unknown: cost',
    )
    expect(() => parsePriceCsv('# only a comment\n')).toThrow('the price file has no header line')
  })

  it('names every bad line and takes none of the file', () => {
    const text =
      'component,unit,price,currency,valid_from\nstt,minute,0.01,EUR,2026-01-01\nstt,minute,0.01,EUR\nstt,minute,0.01,EUR,01/02/2026\n'
    expect(() => parsePriceCsv(text)).toThrow(
      'line 3: 4 fields, the header names 5\nline 4: valid_from must be a date (2026-01-01) or an ISO 8601 date-time with a zone, got "01/02/2026"',
    )
  })

  it('splits quoted fields with commas and doubled quotes', () => {
    expect(splitCsvLine('a,"b, c","say ""hi""",')).toEqual(['a', 'b, c', 'say "hi"', ''])
    expect(() => splitCsvLine('a,"b')).toThrow('a quoted field is not closed')
  })

  it('the example price file parses and keeps the rules', () => {
    const example = readFileSync(new URL('../../docs/prices.example.csv', import.meta.url), 'utf8')
    expect(example).toMatch(/EXAMPLE/)
    const changes = parsePriceCsv(example)
    expect(changes.length).toBeGreaterThan(5)
    expect(() => checkPriceChanges([], changes)).not.toThrow()
  })
})
