import { describe, expect, it } from 'vitest'
import { eventAvroSchema } from '../../core/event/event-schema.ts'
import { clickhouseTypeOfAvro, landingColumns } from './landing-columns.ts'

describe('clickhouseTypeOfAvro', () => {
  it('reads a nullable primitive as Nullable, a nullable array, map or record as the bare composite', () => {
    expect(clickhouseTypeOfAvro(['null', 'string'])).toBe('Nullable(String)')
    expect(clickhouseTypeOfAvro(['null', 'boolean'])).toBe('Nullable(Bool)')
    expect(clickhouseTypeOfAvro(['null', { type: 'array', items: 'string' }])).toBe('Array(String)')
    expect(clickhouseTypeOfAvro(['null', { type: 'map', values: 'string' }])).toBe('Map(String, String)')
    expect(
      clickhouseTypeOfAvro([
        'null',
        { type: 'record', name: 'R', fields: [{ name: 'a', type: ['null', 'double'] }] },
      ]),
    ).toBe('Tuple(a Nullable(Float64))')
    expect(clickhouseTypeOfAvro(['null', { type: 'long', logicalType: 'timestamp-millis' }])).toBe(
      "Nullable(DateTime64(3, 'UTC'))",
    )
  })

  it('refuses a type it has no mapping for rather than guessing', () => {
    expect(() => clickhouseTypeOfAvro('bytes' as never)).toThrow(/no ClickHouse type/)
  })
})

describe('landingColumns', () => {
  it('has one column per top-level field of the event, the history as an array of tuples', () => {
    const columns = landingColumns(eventAvroSchema).split(',\n    ')
    expect(columns.map((column) => column.trim().split(' ')[0])).toEqual(
      eventAvroSchema.fields.map((field) => field.name),
    )
    expect(landingColumns(eventAvroSchema)).toMatch(/history Array\(Tuple\(role Nullable\(String\), /)
    expect(landingColumns(eventAvroSchema)).toMatch(/received_at Nullable\(DateTime64\(3, 'UTC'\)\)/)
  })
})
