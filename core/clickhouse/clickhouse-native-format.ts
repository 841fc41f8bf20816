import { NativeValueError } from './clickhouse-errors.ts'

// Rows to one block of ClickHouse's Native format, the input the engine reads cheapest: each column
// as it lies in memory (fixed-width little-endian numbers, length-prefixed strings, a null map before
// a Nullable column, cumulative offsets before an array's elements), so the engine parses nothing and
// JS builds no text. Pure: rows in, bytes out. Only the types the pipeline's tables use are known;
// a LowCardinality column is sent as its plain type, which ClickHouse converts on input
// (input_format_native_allow_types_conversion, on by default). A value that does not fit its type is
// refused here with the code ClickHouse itself gives such a value, so callers treat it alike.
// Format: https://clickhouse.com/docs/interfaces/formats/Native (a block without BlockInfo).

type NativeNumberType = 'UInt8' | 'UInt32' | 'UInt64' | 'Float64' | NativeTimeType
/** DateTime64(3) travels as Int64 epoch milliseconds, DateTime as UInt32 epoch seconds. */
type NativeTimeType = "DateTime64(3, 'UTC')" | "DateTime('UTC')"

/** A column's type on the wire. */
export type NativeType =
  | 'String'
  | 'Nullable(String)'
  | NativeNumberType
  | `Nullable(${NativeNumberType})`
  | 'Nullable(Bool)'
  | 'Array(String)'
  | 'Array(Float64)'
  | 'Map(String, String)'

/** The wire types a column whose values have the TypeScript type T may declare. */
export type NativeTypeOf<T> = [T] extends [string]
  ? 'String'
  : [T] extends [string | null]
    ? 'Nullable(String)'
    : [T] extends [number]
      ? NativeNumberType
      : [T] extends [number | null]
        ? `Nullable(${NativeNumberType})`
        : [T] extends [boolean | null]
          ? 'Nullable(Bool)'
          : [T] extends [readonly string[]]
            ? 'Array(String)'
            : [T] extends [readonly number[]]
              ? 'Array(Float64)'
              : [T] extends [Readonly<Record<string, string>>]
                ? 'Map(String, String)'
                : never

export interface NativeColumn {
  name: string
  type: NativeType
}

/** ClickHouse's codes for a value its column cannot hold (clickhouse-errors.ts: the data's fault). */
const typeMismatch = 53
const valueOutOfRange = 321

const twoTo32 = 4_294_967_296

/** A growing byte buffer with little-endian writers. */
class BlockWriter {
  bytes: Buffer
  view: DataView
  position = 0

  constructor(size: number) {
    this.bytes = Buffer.allocUnsafe(size)
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length)
  }

  reserve(count: number): void {
    if (this.position + count <= this.bytes.length) return
    const bigger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.position + count))
    this.bytes.copy(bigger, 0, 0, this.position)
    this.bytes = bigger
    this.view = new DataView(bigger.buffer, bigger.byteOffset, bigger.length)
  }

  varUInt(value: number): void {
    this.reserve(10)
    let rest = value
    while (rest >= 0x80) {
      this.bytes[this.position++] = (rest % 0x80) | 0x80
      rest = Math.floor(rest / 0x80)
    }
    this.bytes[this.position++] = rest
  }

  string(value: string): void {
    const units = value.length
    const start = this.position + 1
    // Short ASCII (ids, roles, kinds, agent names): a loop costs less than the native write call.
    if (units <= 48) {
      this.reserve(units * 3 + 1)
      const bytes = this.bytes
      let index = 0
      for (; index < units; index++) {
        const code = value.charCodeAt(index)
        if (code >= 0x80) break
        bytes[start + index] = code
      }
      if (index === units) {
        bytes[this.position] = units
        this.position = start + units
        return
      }
    }
    // UTF-8 takes at most 3 bytes per UTF-16 code unit: when that fits a one-byte length, the string
    // is written first and its length after, without measuring it twice.
    if (units * 3 < 0x80) {
      this.reserve(units * 3 + 1)
      const length = this.bytes.write(value, start, 'utf8')
      this.bytes[this.position] = length
      this.position = start + length
      return
    }
    const length = Buffer.byteLength(value, 'utf8')
    this.varUInt(length)
    this.reserve(length)
    this.position += this.bytes.write(value, this.position, 'utf8')
  }

  uint8(value: number): void {
    this.reserve(1)
    this.bytes[this.position++] = value
  }

  /** Any safe integer, as a 64-bit two's complement (UInt64 and Int64 alike). */
  int64(value: number): void {
    this.reserve(8)
    this.view.setUint32(this.position, value >>> 0, true)
    this.view.setInt32(this.position + 4, Math.floor(value / twoTo32), true)
    this.position += 8
  }
}

/** Names the row of a value, only when it is refused. */
type Where = (row: number) => string
type ColumnWriter = (out: BlockWriter, values: readonly unknown[], where: Where) => void

/**
 * A scalar type: writes a column of values; with `nullable`, a null (or undefined) as what stands
 * under a null (the type's zero). Each type has a loop of its own, so that no call per value goes
 * through a shared site that sees every type (which V8 cannot inline).
 */
interface ScalarType {
  name: string
  column(out: BlockWriter, values: readonly unknown[], where: Where, nullable: boolean): void
}

function refuse(where: string, value: unknown, type: string, code: number): never {
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value)
  throw new NativeValueError(`${where}: ${shown} does not fit ${type}`, code)
}

const refuseRow = (
  where: Where,
  row: number,
  value: unknown,
  name: string,
  nullable: boolean,
  code: number,
) => refuse(where(row), value, nullable ? `Nullable(${name})` : name, code)

/** Epoch seconds as a ClickHouse DateTime (UInt32) holds them: saturated to 1970..2106, as its parser stores text. */
export const storedDateTimeSeconds = (seconds: number): number => Math.min(Math.max(seconds, 0), 0xffff_ffff)

/** How an integer type lies on the wire. */
type IntegerLayout = 'UInt8' | 'UInt32' | 'Int64' | 'UInt32 saturated'
const layoutBytes: Record<IntegerLayout, number> = { UInt8: 1, UInt32: 4, Int64: 8, 'UInt32 saturated': 4 }

const integer = (name: string, min: number, max: number, layout: IntegerLayout): ScalarType => ({
  name,
  column(out, values, where, nullable) {
    out.reserve(values.length * layoutBytes[layout])
    const { bytes, view } = out
    let position = out.position
    for (let row = 0; row < values.length; row++) {
      const value = values[row]
      let number = 0
      if (typeof value === 'number') {
        if (!Number.isInteger(value) || value < min || value > max)
          refuseRow(where, row, value, name, nullable, valueOutOfRange)
        number = value
      } else if (!nullable || value != null) refuseRow(where, row, value, name, nullable, typeMismatch)
      switch (layout) {
        case 'UInt8':
          bytes[position] = number
          position += 1
          break
        case 'UInt32':
          view.setUint32(position, number, true)
          position += 4
          break
        case 'Int64': // any safe integer, as a 64-bit two's complement (UInt64 and Int64 alike)
          view.setUint32(position, number >>> 0, true)
          view.setInt32(position + 4, Math.floor(number / twoTo32), true)
          position += 8
          break
        case 'UInt32 saturated':
          view.setUint32(position, storedDateTimeSeconds(number), true)
          position += 4
          break
      }
    }
    out.position = position
  },
})

// Written out for each type: `typeof value !== 'string'` with a literal is a type check, with a
// variable a string comparison on every value.
const scalars: Record<string, ScalarType> = {
  String: {
    name: 'String',
    column(out, values, where, nullable) {
      for (let row = 0; row < values.length; row++) {
        const value = values[row]
        if (typeof value === 'string') out.string(value)
        else if (nullable && value == null) out.uint8(0)
        else refuseRow(where, row, value, 'String', nullable, typeMismatch)
      }
    },
  },
  Bool: {
    name: 'Bool',
    column(out, values, where, nullable) {
      out.reserve(values.length)
      const bytes = out.bytes
      let position = out.position
      for (let row = 0; row < values.length; row++) {
        const value = values[row]
        if (typeof value === 'boolean') bytes[position++] = value ? 1 : 0
        else if (nullable && value == null) bytes[position++] = 0
        else refuseRow(where, row, value, 'Bool', nullable, typeMismatch)
      }
      out.position = position
    },
  },
  Float64: {
    name: 'Float64',
    column(out, values, where, nullable) {
      out.reserve(values.length * 8)
      const view = out.view
      let position = out.position
      for (let row = 0; row < values.length; row++) {
        const value = values[row]
        if (typeof value === 'number') view.setFloat64(position, value, true)
        else if (nullable && value == null) view.setFloat64(position, 0, true)
        else refuseRow(where, row, value, 'Float64', nullable, typeMismatch)
        position += 8
      }
      out.position = position
    },
  },
  UInt8: integer('UInt8', 0, 0xff, 'UInt8'),
  UInt32: integer('UInt32', 0, 0xffff_ffff, 'UInt32'),
  UInt64: integer('UInt64', 0, Number.MAX_SAFE_INTEGER, 'Int64'),
  "DateTime64(3, 'UTC')": integer(
    'DateTime64(3) epoch milliseconds',
    Number.MIN_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER,
    'Int64',
  ),
  // Seconds outside UInt32 saturate, as ClickHouse's own parser stores them from text.
  "DateTime('UTC')": integer(
    'DateTime epoch seconds',
    Number.MIN_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER,
    'UInt32 saturated',
  ),
}

const scalarColumn =
  (scalar: ScalarType): ColumnWriter =>
  (out, values, where) =>
    scalar.column(out, values, where, false)

const nullableColumn =
  (scalar: ScalarType): ColumnWriter =>
  (out, values, where) => {
    out.reserve(values.length)
    for (let row = 0; row < values.length; row++) out.bytes[out.position++] = values[row] == null ? 1 : 0
    scalar.column(out, values, where, true)
  }

/** Array(T) and Map(K, V) (an array of key-value tuples): cumulative offsets, then the elements. */
function offsets(out: BlockWriter, sizes: readonly number[]): void {
  let end = 0
  for (const size of sizes) {
    end += size
    out.int64(end)
  }
}

/** The row whose array holds element `index` of the flattened elements (only to name a refused value). */
function rowOfElement(values: readonly unknown[], index: number): number {
  let end = 0
  for (let row = 0; row < values.length; row++) {
    end += (values[row] as unknown[] | undefined)?.length ?? 0
    if (index < end) return row
  }
  return values.length - 1
}

const arrayColumn =
  (element: ColumnWriter, type: string): ColumnWriter =>
  (out, values, where) => {
    let total = 0
    for (let row = 0; row < values.length; row++) {
      const value = values[row]
      if (value === undefined) continue
      if (!Array.isArray(value)) refuse(where(row), value, type, typeMismatch)
      total += (value as unknown[]).length
    }
    // Offsets (cumulative ends, UInt64) reserved once; most arrays (tools_added, metric_flags) are empty.
    out.reserve(values.length * 8)
    const view = out.view
    let position = out.position
    const elements = new Array<unknown>(total)
    let end = 0
    for (let row = 0; row < values.length; row++) {
      const value = values[row] as unknown[] | undefined
      if (value !== undefined)
        for (let index = 0; index < value.length; index++) elements[end++] = value[index]
      view.setUint32(position, end, true) // end < 2^32: the elements of one block
      view.setUint32(position + 4, 0, true)
      position += 8
    }
    out.position = position
    if (total === 0) return
    element(out, elements, (index) => where(rowOfElement(values, index)))
  }

const stringColumn = scalarColumn(scalars.String!)

const stringMapColumn: ColumnWriter = (out, values, where) => {
  const entries = values.map((value, row) =>
    value === undefined
      ? []
      : typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.entries(value)
        : refuse(where(row), value, 'Map(String, String)', typeMismatch),
  )
  offsets(
    out,
    entries.map((pairs) => pairs.length),
  )
  const entryRows = entries.flatMap((pairs, row) => pairs.map(() => row))
  const entryWhere = (index: number) => where(entryRows[index]!)
  stringColumn(
    out,
    entries.flatMap((pairs) => pairs.map(([key]) => key)),
    entryWhere,
  )
  stringColumn(
    out,
    entries.flatMap((pairs) => pairs.map(([, value]) => value)),
    entryWhere,
  )
}

interface ColumnEncoding {
  write: ColumnWriter
  /** A plain scalar column some rows do not give goes as Nullable of it (see nativeBlockEncoder). */
  omitted?: { type: string; write: ColumnWriter }
}

function columnEncoding(type: string): ColumnEncoding {
  if (type === 'Map(String, String)') return { write: stringMapColumn }
  const nullable = /^Nullable\((.+)\)$/.exec(type)
  const nullableOf = nullable && scalars[nullable[1]!]
  if (nullableOf) return { write: nullableColumn(nullableOf) }
  const array = /^Array\((.+)\)$/.exec(type)
  if (array) return { write: arrayColumn(columnEncoding(array[1]!).write, type) }
  const scalar = scalars[type]
  if (!scalar) throw new Error(`no Native encoding for ClickHouse type ${type}`)
  return {
    write: scalarColumn(scalar),
    omitted: { type: `Nullable(${type})`, write: nullableColumn(scalar) },
  }
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * Fills one array per column from the rows, in one pass. Generated, so that each column is read by
 * a property load of its own name with its own inline cache: one `row[name]` site over every name
 * costs several times more. The names are checked to be plain identifiers first.
 */
function columnGatherer(names: readonly string[]): (rows: readonly object[], columns: unknown[][]) => void {
  for (const name of names)
    if (!identifier.test(name)) throw new Error(`not a plain column name: ${JSON.stringify(name)}`)
  const reads = names.map((name, index) => `columns[${index}][row] = item.${name}`).join('\n    ')
  return new Function(
    'rows',
    'columns',
    `for (let row = 0; row < rows.length; row++) {\n    const item = rows[row]\n    ${reads}\n  }`,
  ) as (rows: readonly object[], columns: unknown[][]) => void
}

export type NativeBlockEncoder = (rows: readonly Record<string, unknown>[]) => Buffer

/**
 * An encoder of rows (objects holding `columns`) into one Native block with those columns, in that
 * order. `label` names the rows in errors (e.g. the table). A row may leave a column out (undefined,
 * e.g. a tombstone's payload): such a value is null in a Nullable column and empty in an array or
 * map; a plain scalar column that some row leaves out goes as Nullable of its type in that block,
 * its nulls marking the rows ClickHouse fills with the column's default, DEFAULT expression
 * included (input_format_null_as_default): as for a column an insert leaves out, and as the text
 * formats' nulls were filled. An explicit null in a plain column is refused.
 */
export function nativeBlockEncoder(label: string, columns: readonly NativeColumn[]): NativeBlockEncoder {
  const writers = columns.map((column) => ({ ...column, ...columnEncoding(column.type) }))
  const gather = columnGatherer(columns.map((column) => column.name))
  let bytesPerRow = 64
  return (rows) => {
    const out = new BlockWriter(Math.ceil(rows.length * bytesPerRow * 1.25) + 4096)
    out.varUInt(writers.length)
    out.varUInt(rows.length)
    const values = writers.map(() => new Array<unknown>(rows.length))
    gather(rows, values)
    for (const [index, column] of writers.entries()) {
      const columnValues = values[index]!
      const encoding = column.omitted && columnValues.includes(undefined) ? column.omitted : column
      out.string(column.name)
      out.string(encoding.type)
      encoding.write(out, columnValues, (row) => `${label}.${column.name} (row ${row})`)
    }
    // The next block of this shape starts at about the size this one needed: rarely a copy.
    if (rows.length > 0) bytesPerRow = out.position / rows.length
    return out.bytes.subarray(0, out.position)
  }
}
