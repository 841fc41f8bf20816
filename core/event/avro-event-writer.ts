import type { AvroTypeSchema } from './event-schema.ts'

// Avro binary encoding of the event records, compiled once from the schema into plain functions.
// It writes the bytes avsc writes for the same schema (a unit test compares them on generated
// and edge-case events), at a fraction of the cost: avsc resolves every optional field's union
// branch by value and measures every string before writing it (~16% of the ingress's CPU).
// Records are written straight into the caller's buffer (the wire encoder's scratch, which it
// copies out once). Values are checked as avsc checks them: a wrong type throws.

type Write = (value: unknown) => void

// The buffer being written and the next byte's index; set by encode (writing is synchronous).
let buffer: Buffer = Buffer.alloc(0)
let position = 0

/** Room for `bytes` more at `position`, keeping what is written so far (only to learn the size). */
function ensure(bytes: number): void {
  if (position + bytes <= buffer.length) return
  const grown = Buffer.allocUnsafe(Math.max(2 * buffer.length, position + bytes))
  buffer.copy(grown, 0, 0, position)
  buffer = grown
}

function invalid(value: unknown, type: string): never {
  throw new Error(`invalid ${type}: ${JSON.stringify(value)?.slice(0, 80)}`)
}

/** Zig-zag varint, as Avro's long and avsc's writeLong. */
export function writeLong(value: number): void {
  ensure(10)
  if (value >= -1073741824 && value < 1073741824) {
    let m = value >= 0 ? value << 1 : (~value << 1) | 1
    while (m > 0x7f) {
      buffer[position++] = (m & 0x7f) | 0x80
      m >>>= 7
    }
    buffer[position++] = m
  } else {
    let f = value >= 0 ? value * 2 : -value * 2 - 1
    while (f >= 128) {
      buffer[position++] = (f & 0x7f) | 0x80
      f = Math.floor(f / 128)
    }
    buffer[position++] = f
  }
}

// Most strings are short ASCII (ids, roles, timestamps): copied by a loop, which costs less than
// a call into native code to measure and another to write them. Anything else, or a non-ASCII
// character met on the way, goes through Buffer.byteLength and utf8Write.
const loopedStringLength = 256

export function writeString(value: unknown): void {
  if (typeof value !== 'string') invalid(value, 'string')
  const length = value.length
  if (length <= loopedStringLength) {
    const start = position
    writeLong(length) // the byte length, if every character is ASCII
    ensure(length)
    let at = position
    let index = 0
    for (; index < length; index++) {
      const code = value.charCodeAt(index)
      if (code >= 0x80) break
      buffer[at++] = code
    }
    if (index === length) {
      position = at
      return
    }
    position = start
  }
  const bytes = Buffer.byteLength(value)
  writeLong(bytes)
  ensure(bytes)
  position += buffer.write(value, position, bytes, 'utf8')
}

export function writeDouble(value: unknown): void {
  if (typeof value !== 'number') invalid(value, 'double')
  ensure(8)
  position = buffer.writeDoubleLE(value, position)
}

export function writeBoolean(value: unknown): void {
  if (typeof value !== 'boolean') invalid(value, 'boolean')
  ensure(1)
  buffer[position++] = value ? 1 : 0
}

/** A union's branch index: 0 for null, 1 for the value of a ['null', T] (zig-zag: one byte). */
export function writeUnionBranch(branch: 0 | 1): void {
  ensure(1)
  buffer[position++] = branch << 1
}

/** Where the next writes go: `target` from `at` (moving to a larger buffer if it does not fit). */
export function startWriting(target: Buffer, at: number): void {
  buffer = target
  position = at
}

/** What was written since startWriting: the buffer (target, or a larger one holding it) and the end. */
export function written(): { buffer: Buffer; end: number } {
  return { buffer, end: position }
}

// avsc's bound for a long held in a JavaScript number.
export const safeLong = 9007199254740990

function writeLongValue(value: unknown): void {
  if (typeof value !== 'number' || value % 1 !== 0 || value < -safeLong || value > safeLong)
    invalid(value, 'long')
  writeLong(value)
}

const int32Min = -2147483648
const int32Max = 2147483647

function writeIntValue(value: unknown): void {
  if (typeof value !== 'number' || value % 1 !== 0 || value < int32Min || value > int32Max)
    invalid(value, 'int')
  writeLong(value)
}

/**
 * The writer of one schema type, writing at the current position (see startWriting). `named`:
 * the writers of the records compiled so far, by name, for a type that refers to one by its name
 * (the OTLP span schema's Attribute).
 */
export function compileWrite(type: AvroTypeSchema, named = new Map<string, Write>()): Write {
  if (Array.isArray(type)) {
    // ['null', T]: branch 0 is null, branch 1 (zig-zag 2) the value.
    const [first, second] = type
    if (type.length !== 2 || first !== 'null' || second === undefined)
      throw new Error(`unsupported union ${JSON.stringify(type)}`)
    const writeValue = compileWrite(second, named)
    return (value) => {
      ensure(1)
      if (value === null) buffer[position++] = 0
      else {
        buffer[position++] = 2
        writeValue(value)
      }
    }
  }
  if (type === 'string') return writeString
  if (type === 'double') return writeDouble
  if (type === 'boolean') return writeBoolean
  if (type === 'long') return writeLongValue
  if (typeof type === 'string') {
    // Beyond the event schema's types (AvroTypeSchema): an int, or a record named earlier.
    const name: string = type
    if (name === 'int') return writeIntValue
    const reference = named.get(name)
    if (reference === undefined) throw new Error(`unsupported type ${JSON.stringify(type)}`)
    return reference
  }
  switch (type.type) {
    case 'long':
      return writeLongValue
    case 'array': {
      const writeItem = compileWrite(type.items, named)
      return (value) => {
        if (!Array.isArray(value)) invalid(value, 'array')
        const count = value.length
        if (count > 0) {
          writeLong(count)
          for (let index = 0; index < count; index++) writeItem(value[index])
        }
        writeLong(0)
      }
    }
    case 'map': {
      const writeValue = compileWrite(type.values, named)
      return (value) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid(value, 'map')
        const entries = value as Record<string, unknown>
        const keys = Object.keys(entries)
        if (keys.length > 0) {
          writeLong(keys.length)
          for (const key of keys) {
            writeString(key)
            writeValue(entries[key])
          }
        }
        writeLong(0)
      }
    }
    case 'record': {
      const names = type.fields.map((field) => field.name)
      const writers = type.fields.map((field): Write => {
        const write = compileWrite(field.type, named)
        if (!('default' in field)) return write
        if (field.default !== null) throw new Error(`unsupported default of ${field.name}`)
        // As avsc: an absent (undefined) field is written as its default.
        return (value) => write(value === undefined ? null : value)
      })
      const count = names.length
      const writeRecord: Write = (value) => {
        if (typeof value !== 'object' || value === null) invalid(value, `record ${type.name}`)
        const record = value as Record<string, unknown>
        for (let index = 0; index < count; index++) writers[index]!(record[names[index]!])
      }
      named.set(type.name, writeRecord)
      if (type.namespace) named.set(`${type.namespace}.${type.name}`, writeRecord)
      return writeRecord
    }
  }
}

/**
 * The writer of one schema, with avsc's `encode(value, buffer, position)` contract: writes at
 * `at` straight into `target` and returns the end, or a negative number (the bytes missing) when
 * `target` is too short (the caller then retries with a larger one).
 */
export function compileAvroWriter(schema: AvroTypeSchema): {
  encode(value: unknown, target: Buffer, at: number): number
} {
  const write = compileWrite(schema)
  return {
    encode(value, target, at) {
      buffer = target
      position = at
      write(value)
      // ensure() moved to a larger buffer: the record did not fit.
      return buffer === target ? position : target.length - position
    },
  }
}

// Primitives for writing Avro straight from a JSON body's bytes (json-avro-transcoder.ts): the
// bytes are those of the writers above for the same values.

/** Where the next byte goes. */
export function writingAt(): number {
  return position
}

/** A string given as its UTF-8 bytes `source[start..end)`: its byte length, then the bytes. */
export function writeUtf8Bytes(source: Buffer, start: number, end: number): void {
  const length = end - start
  writeLong(length)
  ensure(length)
  if (length <= 64) {
    // A native copy costs more than a loop for short strings (ids, roles, timestamps, short texts).
    const target = buffer
    let at = position
    for (let index = start; index < end; index++) target[at++] = source[index]!
    position = at
    return
  }
  position += (source as Buffer).copy(buffer, position, start, end)
}

/** The buffer to write `length` bytes into at writingAt() (then skip(length)), for writers of their own. */
export function room(length: number): Buffer {
  ensure(length)
  return buffer
}

export function skip(length: number): void {
  position += length
}

/** One byte kept for a block's item count, known only once its items are written (placeCount). */
export function reserveCount(): number {
  ensure(1)
  return position++
}

/** The item count at `at` (kept by reserveCount), the items after it moved on if it needs more bytes. */
export function placeCount(at: number, count: number): void {
  let size = 1
  for (let zigZag = count * 2; zigZag >= 128; zigZag = Math.floor(zigZag / 128)) size++
  const end = position
  if (size > 1) {
    ensure(size - 1 + 10) // keeps what is written up to end; writeLong below then needs no room
    buffer.copyWithin(at + size, at + 1, end)
  }
  position = at
  writeLong(count)
  position = end + size - 1
}

let reorderScratch: Buffer = Buffer.allocUnsafe(0)

/**
 * The fields written from `start` as segments in any order, rewritten in field order:
 * field i is `[starts[i], ends[i])`. The bytes between segments that no field names are dropped.
 */
export function rewriteInFieldOrder(
  start: number,
  starts: Int32Array,
  ends: Int32Array,
  count: number,
): void {
  const length = position - start
  if (reorderScratch.length < length)
    reorderScratch = Buffer.allocUnsafe(Math.max(length, 2 * reorderScratch.length))
  buffer.copy(reorderScratch, 0, start, position)
  position = start
  for (let index = 0; index < count; index++) {
    const from = starts[index]! - start
    const to = ends[index]! - start
    reorderScratch.copy(buffer, position, from, to)
    position += to - from
  }
}
