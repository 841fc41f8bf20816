import { describe, expect, it } from 'vitest'
import { classifyClickHouseError, NativeValueError } from './clickhouse-errors.ts'
import { type NativeColumn, nativeBlockEncoder } from './clickhouse-native-format.ts'

// The Native block, byte by byte, against a second and deliberately naive writer (Buffer.concat,
// BigInt): every type the tables use, nulls, unicode, empty arrays and maps, Float64 to the bit
// (-0 included), the largest safe UInt64, the DateTime64 range ends, and values refused with
// ClickHouse's own codes. The engine's reading of these bytes: native-insert.integration.test.ts.
const varUInt = (value: number): Buffer => {
  const bytes: number[] = []
  let rest = BigInt(value)
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80)
    rest >>= 7n
  }
  bytes.push(Number(rest))
  return Buffer.from(bytes)
}
const str = (value: string) => Buffer.concat([varUInt(Buffer.byteLength(value)), Buffer.from(value, 'utf8')])
const u8 = (...values: number[]) => Buffer.from(values)
const u32 = (...values: number[]) =>
  Buffer.concat(values.map((value) => le(4, (b) => b.writeUInt32LE(value))))
const i64 = (...values: Array<number | bigint>) =>
  Buffer.concat(values.map((value) => le(8, (b) => b.writeBigInt64LE(BigInt(value)))))
const f64 = (...values: number[]) =>
  Buffer.concat(values.map((value) => le(8, (b) => b.writeDoubleLE(value))))
const le = (size: number, write: (buffer: Buffer) => void) => {
  const buffer = Buffer.alloc(size)
  write(buffer)
  return buffer
}
const block = (rows: number, columns: Array<[NativeColumn, Buffer]>) =>
  Buffer.concat([
    varUInt(columns.length),
    varUInt(rows),
    ...columns.flatMap(([{ name, type }, data]) => [str(name), str(type), data]),
  ])

const encode = (columns: NativeColumn[], rows: Record<string, unknown>[]) =>
  nativeBlockEncoder('t', columns)(rows)
const one = (type: NativeColumn['type'], values: unknown[]) =>
  encode(
    [{ name: 'c', type }],
    values.map((c) => ({ c })),
  )
const expectOne = (type: NativeColumn['type'], values: unknown[], data: Buffer) =>
  expect(one(type, values)).toEqual(block(values.length, [[{ name: 'c', type }, data]]))

describe('nativeBlockEncoder', () => {
  it('writes the header (columns, rows, each column named and typed) of an empty block', () => {
    const columns: NativeColumn[] = [
      { name: 'a', type: 'String' },
      { name: 'b', type: 'Nullable(Float64)' },
    ]
    expect(encode(columns, [])).toEqual(
      block(0, [
        [columns[0]!, Buffer.alloc(0)],
        [columns[1]!, Buffer.alloc(0)],
      ]),
    )
  })

  it('writes strings as UTF-8 with their byte length, across the one-byte length boundary', () => {
    const values = [
      '',
      'plain',
      'Grüße, 東京 🎧',
      '\u0000nul inside',
      '東'.repeat(42), // 126 bytes: the length still fits one byte
      '東'.repeat(43), // 129 bytes: two
      'é'.repeat(64), // 128 bytes from 64 code units
      'x'.repeat(70_000), // a three-byte length
    ]
    expectOne('String', values, Buffer.concat(values.map(str)))
  })

  it('writes a null map before a Nullable column, and the empty value under each null', () => {
    expectOne('Nullable(String)', ['a', null, 'ü'], Buffer.concat([u8(0, 1, 0), str('a'), str(''), str('ü')]))
    expectOne('Nullable(Bool)', [true, null, false], Buffer.concat([u8(0, 1, 0), u8(1, 0, 0)]))
    expectOne('Nullable(UInt32)', [null, 7], Buffer.concat([u8(1, 0), u32(0, 7)]))
    expectOne('Nullable(Float64)', [null, -0, 0.1 + 0.2], Buffer.concat([u8(1, 0, 0), f64(0, -0, 0.1 + 0.2)]))
    expectOne("Nullable(DateTime64(3, 'UTC'))", [null, -1], Buffer.concat([u8(1, 0), i64(0, -1)]))
  })

  it('writes Float64 to the bit, -0 and the extremes included', () => {
    const values = [-0, 0, 0.1 + 0.2, Number.MIN_VALUE, -Number.MAX_VALUE, 1e21, 123.456]
    const bytes = one('Float64', values)
    const data = bytes.subarray(bytes.length - values.length * 8)
    values.forEach((value, index) => {
      expect(Object.is(data.readDoubleLE(index * 8), value)).toBe(true)
    })
    expect(data.subarray(0, 8)).toEqual(Buffer.from([0, 0, 0, 0, 0, 0, 0, 0x80]))
  })

  it('writes unsigned integers little-endian, UInt64 up to the largest safe integer', () => {
    expectOne('UInt8', [0, 1, 255], u8(0, 1, 255))
    expectOne('UInt32', [0, 4_294_967_295, 66_000], u32(0, 4_294_967_295, 66_000))
    expectOne(
      'UInt64',
      [0, 2 ** 32, Number.MAX_SAFE_INTEGER],
      i64(0, 2n ** 32n, BigInt(Number.MAX_SAFE_INTEGER)),
    )
  })

  it('writes DateTime64(3) as Int64 epoch milliseconds over the whole range 1900..2299', () => {
    const first = Date.UTC(1900, 0, 1)
    const last = Date.UTC(2300, 0, 1) - 1
    expectOne("DateTime64(3, 'UTC')", [first, 0, last], i64(first, 0, last))
  })

  it('writes DateTime as UInt32 epoch seconds, saturating outside it as ClickHouse parses text', () => {
    expectOne("DateTime('UTC')", [1_750_000_000, -60, 2 ** 32 + 60], u32(1_750_000_000, 0, 4_294_967_295))
  })

  it('writes arrays as cumulative UInt64 offsets, then the elements, empty arrays included', () => {
    expectOne(
      'Array(String)',
      [[], ['a', 'ß'], [], ['c']],
      Buffer.concat([i64(0, 2, 2, 3), str('a'), str('ß'), str('c')]),
    )
    expectOne('Array(String)', [[], []], i64(0, 0))
    expectOne('Array(Float64)', [[1.5, -0], []], Buffer.concat([i64(2, 2), f64(1.5, -0)]))
  })

  it('writes Map(String, String) as offsets, then all keys, then all values', () => {
    expectOne(
      'Map(String, String)',
      [{ utm: 'mail', ключ: 'значение' }, {}, { a: '' }],
      Buffer.concat([i64(2, 2, 3), str('utm'), str('ключ'), str('a'), str('mail'), str('значение'), str('')]),
    )
  })

  it('writes the columns asked for in their order, from rows that hold more', () => {
    const columns: NativeColumn[] = [
      { name: 'id', type: 'UInt32' },
      { name: 'name', type: 'Nullable(String)' },
    ]
    expect(
      encode(columns, [
        { name: 'x', id: 1, other: true },
        { id: 2, name: null, other: false },
      ]),
    ).toEqual(
      block(2, [
        [columns[0]!, u32(1, 2)],
        [columns[1]!, Buffer.concat([u8(0, 1), str('x'), str('')])],
      ]),
    )
  })

  it('sends a plain column some rows leave out as Nullable (ClickHouse fills its default), arrays and maps empty', () => {
    const columns: NativeColumn[] = [
      { name: 'id', type: 'UInt32' },
      { name: 'n', type: 'UInt32' },
      { name: 's', type: 'Nullable(String)' },
      { name: 'tags', type: 'Array(String)' },
      { name: 'params', type: 'Map(String, String)' },
    ]
    const rows = [{ id: 1, n: 5, s: 'a', tags: ['t'], params: { k: 'v' } }, { id: 2 }]
    expect(encode(columns, rows)).toEqual(
      block(2, [
        [columns[0]!, u32(1, 2)],
        [{ name: 'n', type: 'Nullable(UInt32)' }, Buffer.concat([u8(0, 1), u32(5, 0)])],
        [columns[2]!, Buffer.concat([u8(0, 1), str('a'), str('')])],
        [columns[3]!, Buffer.concat([i64(1, 1), str('t')])],
        [columns[4]!, Buffer.concat([i64(1, 1), str('k'), str('v')])],
      ]),
    )
    // Only the block that needs it: complete rows keep the plain type.
    expect(encode(columns.slice(0, 2), [{ id: 1, n: 5 }])).toEqual(
      block(1, [
        [columns[0]!, u32(1)],
        [columns[1]!, u32(5)],
      ]),
    )
  })

  it('gives the same bytes for blocks far larger than its first guess, and again after it', () => {
    const columns: NativeColumn[] = [{ name: 's', type: 'String' }]
    const encoder = nativeBlockEncoder('t', columns)
    const small = [{ s: 'a' }]
    const large = Array.from({ length: 3_000 }, (_, index) => ({ s: `${index}:${'y'.repeat(index % 500)}` }))
    for (const rows of [small, large, small, large])
      expect(encoder(rows)).toEqual(
        block(rows.length, [[columns[0]!, Buffer.concat(rows.map((row) => str(row.s)))]]),
      )
  })

  it("refuses a value its type cannot hold, naming table, column and row, with ClickHouse's code", () => {
    const refusal = (type: NativeColumn['type'], value: unknown) => {
      try {
        one(type, [value])
      } catch (error) {
        return error as NativeValueError
      }
      throw new Error(`${type} took ${String(value)}`)
    }
    const cases: Array<[NativeColumn['type'], unknown, number]> = [
      ['UInt32', -1, 321],
      ['UInt32', 1.5, 321],
      ['UInt32', 2 ** 32, 321],
      ['UInt8', 256, 321],
      ['UInt64', 2 ** 53, 321],
      ['UInt32', '1', 53],
      ['String', 1, 53],
      ['String', null, 53],
      ['Float64', '0.5', 53],
      ['Nullable(Bool)', 1, 53],
      ["DateTime64(3, 'UTC')", 0.5, 321],
      ['Array(String)', 'a', 53],
      ['Array(String)', ['a', 2], 53],
      ['Map(String, String)', { a: 1 }, 53],
    ]
    for (const [type, value, code] of cases) {
      const error = refusal(type, value)
      expect(error, `${type} ${String(value)}`).toBeInstanceOf(NativeValueError)
      expect(error.code, `${type} ${String(value)}`).toBe(code)
      expect(error.message).toMatch(/^t\.c \(row 0\): .* does not fit /)
      expect(classifyClickHouseError(error).class).toBe('data')
    }
    const rows = [{ c: [] }, { c: [] }, { c: ['ok', 7] }]
    expect(() => encode([{ name: 'c', type: 'Array(String)' }], rows)).toThrow(
      't.c (row 2): 7 does not fit String',
    )
  })

  it('refuses, when the encoder is made, a type it has no encoding for', () => {
    expect(() => nativeBlockEncoder('t', [{ name: 'c', type: 'Int128' as NativeColumn['type'] }])).toThrow(
      'no Native encoding for ClickHouse type Int128',
    )
  })
})
