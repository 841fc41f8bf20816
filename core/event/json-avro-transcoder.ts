import { isUtf8 } from 'node:buffer'
import {
  compileWrite,
  placeCount,
  reserveCount,
  rewriteInFieldOrder,
  room,
  skip,
  writeBoolean,
  writeDouble,
  writeLong,
  writeUnionBranch,
  writeUtf8Bytes,
  writingAt,
} from './avro-event-writer.ts'
import type { IngestMetadata } from './event-record.ts'
import type { AvroRecordSchema, AvroTypeSchema, ShapeType } from './event-schema.ts'
import { eventAvroSchema, eventShape, extraFieldsField } from './event-schema.ts'
import { doubleFits, longFits, timestampFits, uuidFits } from './scalar-fits.ts'
import type { CharCodes } from './storable-timestamp.ts'
import { ingestProperty, writeMessage } from './validating-event-encoder.ts'

// The ingress's fast path: a ConversationComplete body's UTF-8 JSON bytes transcoded straight
// into its Avro record, with no JSON.parse and no JS objects for the payload. Strings without
// escapes are copied byte for byte; values whose content is checked (UUIDs, timestamps,
// numbers) become the JS primitive JSON.parse would give and pass the same checks
// (scalar-fits.ts). It only takes what it is sure of: anything unusual (unknown or duplicate
// keys, a misfit, escapes in keys, lone surrogates, invalid JSON, another event kind) makes it
// decline (undefined), and the body takes the parse-and-walk path, which alone words problems
// and refusals. When it answers, its bytes are those of that path (unit tests compare them).
// Used by the ingress for sources without a PII policy (ingress-app.ts): it brought the ingress
// from 0.46–0.48 to 0.49–0.54 of the bare parse on a quiet machine (bench/results/ingress.md, #13).

type StringFormat = 'uuid' | 'date-time'
type ValuePlan =
  | { kind: 'string'; format: StringFormat | undefined }
  | { kind: 'double' }
  | { kind: 'long' }
  | { kind: 'boolean' }
  | { kind: 'record'; record: RecordPlan }
  | { kind: 'array'; items: ValuePlan }
  | { kind: 'map'; values: ValuePlan }

const payloadField = 0
const ingestField = 1
const extraField = 2

interface FieldPlan {
  role: typeof payloadField | typeof ingestField | typeof extraField
  nameBytes: Buffer
  optional: boolean
  value: ValuePlan | undefined
  /** The event's kind and its session id: what the ingress's classification reads. */
  special: 'event' | 'session' | undefined
  ingest: keyof IngestMetadata | undefined
  writeIngest: ((value: unknown) => void) | undefined
}

interface RecordPlan {
  fields: FieldPlan[]
  // Per record kind (no record contains its own kind, so one set each is enough): where each
  // field's bytes were written, and whether it was seen.
  starts: Int32Array
  ends: Int32Array
  seen: Uint8Array
}
const unseen = 0
const filled = 1 // null, or ingestion metadata: written without a key
const missing = 2 // required, no key (yet)
const real = 3 // written from its key's value

const isUnion = (type: AvroTypeSchema): type is ['null', AvroTypeSchema] => Array.isArray(type)
type NonUnion = Exclude<AvroTypeSchema, ['null', AvroTypeSchema]>
const branch = (type: AvroTypeSchema): NonUnion => (isUnion(type) ? branch(type[1]) : type)

function valuePlan(shape: ShapeType, avro: AvroTypeSchema): ValuePlan {
  const type = branch(avro)
  switch (shape.kind) {
    case 'string':
      return { kind: 'string', format: shape.format }
    case 'double':
    case 'long':
    case 'boolean':
      return { kind: shape.kind }
    case 'record':
      if (typeof type !== 'object' || type.type !== 'record')
        throw new Error('record shape, not record schema')
      return { kind: 'record', record: recordPlan(shape, type) }
    case 'array':
      if (typeof type !== 'object' || type.type !== 'array') throw new Error('array shape, not array schema')
      return { kind: 'array', items: valuePlan(shape.items, type.items) }
    case 'map': {
      if (typeof type !== 'object' || type.type !== 'map') throw new Error('map shape, not map schema')
      // The keys of one map are compared with each other in one set of slots (mapKeyStarts).
      if (shape.values.kind === 'map' || shape.values.kind === 'record' || shape.values.kind === 'array')
        throw new Error('the transcoder takes maps of scalars only')
      return { kind: 'map', values: valuePlan(shape.values, type.values) }
    }
  }
}

function recordPlan(shape: ShapeType & { kind: 'record' }, schema: AvroRecordSchema): RecordPlan {
  const fields = schema.fields.map((field): FieldPlan => {
    const plan: FieldPlan = {
      role: payloadField,
      nameBytes: Buffer.from(field.name),
      optional: true,
      value: undefined,
      special: undefined,
      ingest: undefined,
      writeIngest: undefined,
    }
    if (field.name === extraFieldsField) return { ...plan, role: extraField }
    const shapeField = shape.fields.find((candidate) => candidate.name === field.name)
    if (shapeField === undefined) {
      const ingest = ingestProperty[field.name as keyof typeof ingestProperty]
      if (shape !== eventShape || ingest === undefined)
        throw new Error(`${schema.name}.${field.name}: unknown`)
      return { ...plan, role: ingestField, ingest, writeIngest: compileWrite(field.type) }
    }
    const special =
      shape === eventShape && field.name === 'event'
        ? 'event'
        : schema.name === 'ConversationData' && field.name === 'session_id'
          ? 'session'
          : undefined
    return { ...plan, optional: shapeField.optional, value: valuePlan(shapeField.type, field.type), special }
  })
  const count = fields.length
  return { fields, starts: new Int32Array(count), ends: new Int32Array(count), seen: new Uint8Array(count) }
}

const eventPlan = recordPlan(eventShape, eventAvroSchema)
const conversationComplete = 'ConversationComplete'

// The body being read and the next byte's index (transcoding is synchronous).
const noBody = Buffer.alloc(0)
let source: Buffer = noBody
/** The body's whole 32-bit words (when it starts on a 4-byte boundary): long strings are scanned by word. */
let words: Int32Array | undefined
let at = 0
let ingestNow: IngestMetadata = { source: null, receivedAt: null }
let sessionId: string | undefined

// The last string scanned: its bytes between the quotes, and whether it has escapes.
let stringStart = 0
let stringEnd = 0
let stringEscaped = false
/** How many escapes it has, and whether any is a \u escape (else each escape is one byte decoded). */
let stringEscapes = 0
let stringUnicodeEscapes = false
/** Where its escapes are (their backslashes), the first stringEscapes of them. */
let escapeAt = new Int32Array(256)

const quote = 0x22
const backslash = 0x5c
const comma = 0x2c
const colon = 0x3a
const openBrace = 0x7b
const closeBrace = 0x7d
const openBracket = 0x5b
const closeBracket = 0x5d
const minus = 0x2d

type SlicingBuffer = Buffer & { latin1Slice(start: number, end: number): string }
const latin1 = (start: number, end: number): string => (source as SlicingBuffer).latin1Slice(start, end)

/** Bytes read as Latin-1 text without making a string (timestamps: ~120 an event). */
class Latin1Text implements CharCodes {
  bytes: Buffer = noBody
  start = 0
  length = 0
  charCodeAt(index: number): number {
    return index < this.length ? this.bytes[this.start + index]! : Number.NaN
  }
  toString(): string {
    return (this.bytes as SlicingBuffer).latin1Slice(this.start, this.start + this.length)
  }
}
const stringBytes = new Latin1Text()

/** The byte at `at` after JSON whitespace (undefined at the end). */
function skipWhitespace(): number | undefined {
  let code = source[at]
  if (code === undefined || code > 0x20) return code // compact JSON: no whitespace
  while (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) code = source[++at]
  return code
}

// The bytes a string's scan stops at: its end, an escape, and the control bytes JSON refuses raw.
const stops = new Uint8Array(256)
stops.fill(1, 0, 0x20)
stops[quote] = 1
stops[backslash] = 1

/** The string whose opening quote is at `at`; false when it is not valid JSON (raw control bytes, no end). */
function scanString(): boolean {
  const bytes = source
  const length = bytes.length
  let index = at + 1
  const start = index
  let escaped = false
  let escapes = 0
  let unicodeEscapes = false
  for (;;) {
    // Long strings (texts) four bytes at a time, while none of the four can be a stop.
    const wordView = words
    if (wordView !== undefined && index + 16 < length) {
      let shortRun = 0
      while (shortRun < 8 && stops[bytes[index]!] === 0) {
        index++
        shortRun++
      }
      if (shortRun === 8) {
        while ((index & 3) !== 0 && stops[bytes[index]!] === 0) index++
        if ((index & 3) === 0) {
          let word = index >> 2
          const wordCount = wordView.length
          for (; word < wordCount; word++) {
            const x = wordView[word]!
            const quotes = x ^ 0x22222222
            const backslashes = x ^ 0x5c5c5c5c
            // Any byte below 0x20, equal to a quote, or to a backslash (exact as a yes/no).
            if (
              ((x - 0x20202020) & ~x & 0x80808080) |
              ((quotes - 0x01010101) & ~quotes & 0x80808080) |
              ((backslashes - 0x01010101) & ~backslashes & 0x80808080)
            )
              break
          }
          index = word << 2
        }
      }
    }
    while (index < length && stops[bytes[index]!] === 0) index++
    if (index >= length) return false
    const code = bytes[index]!
    if (code === quote) break
    if (code !== backslash) return false // a raw control byte
    escaped = true
    if (escapes === escapeAt.length) {
      const grown = new Int32Array(2 * escapeAt.length)
      grown.set(escapeAt)
      escapeAt = grown
    }
    escapeAt[escapes++] = index
    if (bytes[index + 1] === 0x75) unicodeEscapes = true
    index += 2 // the escaped byte cannot end the string; what it means is read by decodeEscapes
  }
  stringStart = start
  stringEnd = index
  stringEscaped = escaped
  stringEscapes = escapes
  stringUnicodeEscapes = unicodeEscapes
  at = index + 1
  return true
}

let unescaped: Buffer = Buffer.allocUnsafe(4096)

function hex4(index: number): number {
  let value = 0
  for (let end = index + 4; index < end; index++) {
    const code = source[index]
    if (code === undefined) return -1
    const digit =
      code >= 0x30 && code <= 0x39
        ? code - 0x30
        : code >= 0x61 && code <= 0x66
          ? code - 0x57
          : code >= 0x41 && code <= 0x46
            ? code - 0x37
            : -1
    if (digit < 0) return -1
    value = value * 16 + digit
  }
  return value
}

/**
 * The last string's escapes decoded as UTF-8 into `out` from `length` on: the end, or -1 for
 * an escape JSON does not have or a lone surrogate (JSON.parse keeps those; declined here).
 */
function decodeEscapes(out: Buffer, length: number): number {
  const bytes = source
  const end = stringEnd
  let nextEscape = 0
  for (let index = stringStart; index < end; ) {
    // The run up to the next escape as it is: long runs by a native copy, short ones by a loop.
    const runEnd = nextEscape < stringEscapes ? escapeAt[nextEscape++]! : end
    if (runEnd - index > 64) {
      length += bytes.copy(out, length, index, runEnd)
      index = runEnd
    } else while (index < runEnd) out[length++] = bytes[index++]!
    if (index === end) break
    const escaped = bytes[index + 1]
    index += 2
    switch (escaped) {
      case quote:
      case backslash:
      case 0x2f: // /
        out[length++] = escaped
        break
      case 0x62: // b
        out[length++] = 0x08
        break
      case 0x66: // f
        out[length++] = 0x0c
        break
      case 0x6e: // n
        out[length++] = 0x0a
        break
      case 0x72: // r
        out[length++] = 0x0d
        break
      case 0x74: // t
        out[length++] = 0x09
        break
      case 0x75: {
        // u: four hex digits; a surrogate pair is one character of four UTF-8 bytes
        let point = hex4(index)
        if (point < 0) return -1
        index += 4
        if (point >= 0xdc00 && point <= 0xdfff) return -1
        if (point >= 0xd800 && point <= 0xdbff) {
          if (bytes[index] !== backslash || bytes[index + 1] !== 0x75) return -1
          const low = hex4(index + 2)
          if (low < 0xdc00 || low > 0xdfff) return -1
          index += 6
          nextEscape++ // the low half's escape, read here
          point = 0x10000 + ((point - 0xd800) << 10) + (low - 0xdc00)
          out[length++] = 0xf0 | (point >> 18)
          out[length++] = 0x80 | ((point >> 12) & 0x3f)
          out[length++] = 0x80 | ((point >> 6) & 0x3f)
          out[length++] = 0x80 | (point & 0x3f)
        } else if (point < 0x80) out[length++] = point
        else if (point < 0x800) {
          out[length++] = 0xc0 | (point >> 6)
          out[length++] = 0x80 | (point & 0x3f)
        } else {
          out[length++] = 0xe0 | (point >> 12)
          out[length++] = 0x80 | ((point >> 6) & 0x3f)
          out[length++] = 0x80 | (point & 0x3f)
        }
        break
      }
      default:
        return -1
    }
  }
  return length
}

/** The last string, escapes decoded, as an Avro string; false when an escape is declined. */
function writeUnescaped(): boolean {
  if (!stringUnicodeEscapes) {
    // Each escape is two bytes that decode to one: the length is known before decoding.
    const length = stringEnd - stringStart - stringEscapes
    writeLong(length)
    const start = writingAt()
    const end = decodeEscapes(room(length), start)
    if (end - start !== length) return false // an escape JSON does not have
    skip(length)
    return true
  }
  if (unescaped.length < stringEnd - stringStart)
    unescaped = Buffer.allocUnsafe(2 * (stringEnd - stringStart))
  const length = decodeEscapes(unescaped, 0)
  if (length < 0) return false
  writeUtf8Bytes(unescaped, 0, length)
  return true
}

const isDigit = (code: number | undefined): boolean => code !== undefined && code >= 0x30 && code <= 0x39

/** The JSON number at `at` as JSON.parse reads it; NaN when there is none (never NaN otherwise). */
function number(): number {
  const start = at
  let index = at
  let code = source[index]
  const negative = code === minus
  if (negative) code = source[++index]
  let whole = 0
  if (code === 0x30) code = source[++index]
  else if (code !== undefined && code >= 0x31 && code <= 0x39) {
    do {
      whole = whole * 10 + (code! - 0x30)
      code = source[++index]
    } while (isDigit(code))
  } else return Number.NaN
  let simple = true
  let scale = 1
  if (code === 0x2e) {
    code = source[++index]
    if (!isDigit(code)) return Number.NaN
    do {
      whole = whole * 10 + (code! - 0x30)
      scale *= 10
      code = source[++index]
    } while (isDigit(code))
  }
  if (code === 0x65 || code === 0x45) {
    simple = false
    code = source[++index]
    if (code === 0x2b || code === minus) code = source[++index]
    if (!isDigit(code)) return Number.NaN
    do code = source[++index]
    while (isDigit(code))
  }
  at = index
  // Digits below 2^53 are exact in a double, and so is a power of ten up to 10^22, so one
  // division rounds as correctly as JSON.parse does (Clinger's fast path of decimal reading);
  // anything else is read by Number, as JSON.parse reads it.
  if (simple && whole <= Number.MAX_SAFE_INTEGER && scale <= 1e22) {
    const value = scale === 1 ? whole : whole / scale
    return negative ? -value : value
  }
  return Number(latin1(start, index))
}

/** The literal at `at` (true, false, null) when it is there; moves past it. */
function literal(text: string): boolean {
  for (let index = 0; index < text.length; index++)
    if (source[at + index] !== text.charCodeAt(index)) return false
  at += text.length
  return true
}

function writeString(plan: { format: StringFormat | undefined }, special: FieldPlan['special']): boolean {
  if (source[at] !== quote || !scanString()) return false
  if (plan.format === undefined && special === undefined) {
    if (stringEscaped) return writeUnescaped()
    writeUtf8Bytes(source, stringStart, stringEnd)
    return true
  }
  // Checked content, read as Latin-1: a multi-byte character then reads as characters the checks
  // (ASCII patterns) and the comparison refuse, so what passes is ASCII, its bytes its UTF-8.
  if (stringEscaped) return false
  if (plan.format === 'date-time') {
    stringBytes.bytes = source
    stringBytes.start = stringStart
    stringBytes.length = stringEnd - stringStart
    const fits = timestampFits(stringBytes)
    stringBytes.bytes = noBody
    if (!fits) return false
  } else {
    const text = latin1(stringStart, stringEnd)
    if (plan.format === 'uuid' && !uuidFits(text)) return false
    if (special === 'event' && text !== conversationComplete) return false
    if (special === 'session') sessionId = text
  }
  writeUtf8Bytes(source, stringStart, stringEnd)
  return true
}

function writeValue(plan: ValuePlan, special: FieldPlan['special']): boolean {
  switch (plan.kind) {
    case 'string':
      return writeString(plan, special)
    case 'double': {
      const value = number()
      if (Number.isNaN(value) || !doubleFits(value)) return false
      writeDouble(value)
      return true
    }
    case 'long': {
      const value = number()
      if (Number.isNaN(value) || !longFits(value)) return false
      writeLong(value)
      return true
    }
    case 'boolean': {
      const code = source[at]
      if (code === 0x74 && literal('true')) writeBoolean(true)
      else if (code === 0x66 && literal('false')) writeBoolean(false)
      else return false
      return true
    }
    case 'record':
      return source[at] === openBrace && writeRecord(plan.record)
    case 'array':
      return source[at] === openBracket && writeArray(plan.items)
    case 'map':
      return source[at] === openBrace && writeMap(plan.values)
  }
}

function writeArray(items: ValuePlan): boolean {
  at++
  let code = skipWhitespace()
  if (code === closeBracket) {
    at++
    writeLong(0)
    return true
  }
  const countAt = reserveCount()
  let count = 0
  for (;;) {
    if (!writeValue(items, undefined)) return false
    count++
    code = skipWhitespace()
    if (code === closeBracket) break
    if (code !== comma) return false
    at++
    skipWhitespace()
  }
  at++
  placeCount(countAt, count)
  writeLong(0)
  return true
}

// The keys of the map being written (maps hold scalars only, so one map at a time).
const maxMapKeys = 64
const mapKeyStarts = new Int32Array(maxMapKeys)
const mapKeyEnds = new Int32Array(maxMapKeys)
const prototypeKeys = [Buffer.from('__proto__'), Buffer.from('constructor')]

function sameBytes(bytes: Uint8Array, start: number, end: number): boolean {
  if (bytes.length !== end - start) return false
  for (let index = 0; index < bytes.length; index++) if (source[start + index] !== bytes[index]) return false
  return true
}

function sameKeys(start: number, end: number, otherStart: number, otherEnd: number): boolean {
  if (end - start !== otherEnd - otherStart) return false
  for (let index = 0; index < end - start; index++)
    if (source[start + index] !== source[otherStart + index]) return false
  return true
}

/**
 * A map of scalars, in the order JSON.parse gives its keys: keys that are array indexes (JSON.parse
 * puts them first), duplicates (it keeps the last) and prototype names are declined.
 */
function writeMap(values: ValuePlan): boolean {
  at++
  let code = skipWhitespace()
  if (code === closeBrace) {
    at++
    writeLong(0)
    return true
  }
  const countAt = reserveCount()
  let count = 0
  for (;;) {
    if (code !== quote || !scanString() || stringEscaped || count === maxMapKeys) return false
    const start = stringStart
    const end = stringEnd
    if (isDigit(source[start])) return false
    for (const name of prototypeKeys) if (sameBytes(name, start, end)) return false
    for (let index = 0; index < count; index++)
      if (sameKeys(start, end, mapKeyStarts[index]!, mapKeyEnds[index]!)) return false
    mapKeyStarts[count] = start
    mapKeyEnds[count] = end
    writeUtf8Bytes(source, start, end)
    if (skipWhitespace() !== colon) return false
    at++
    skipWhitespace()
    if (!writeValue(values, undefined)) return false
    count++
    code = skipWhitespace()
    if (code === closeBrace) break
    if (code !== comma) return false
    at++
    code = skipWhitespace()
  }
  at++
  placeCount(countAt, count)
  writeLong(0)
  return true
}

/** Whether the key at `at` is the field's name (then `at` moves past its closing quote). */
function keyIs(field: FieldPlan, first: number | undefined): boolean {
  const name = field.nameBytes
  if (name[0] !== first || field.role !== payloadField) return false
  const bytes = source
  const start = at + 1
  const length = name.length
  if (bytes[start + length] !== quote) return false
  for (let index = 1; index < length; index++) if (bytes[start + index] !== name[index]) return false
  at = start + length + 1
  return true
}

/**
 * The payload field named by the key whose opening quote is at `at`, trying the schema's order
 * from `expected` on; -1 if none (an unknown key, or one spelt with escapes).
 */
function matchKey(plan: RecordPlan, expected: number): number {
  const first = source[at + 1]
  const fields = plan.fields
  const count = fields.length
  for (let index = expected; index < count; index++) if (keyIs(fields[index]!, first)) return index
  for (let index = 0; index < expected; index++) if (keyIs(fields[index]!, first)) return index
  return -1
}

/** The bytes of a field without a key: null, our ingestion metadata, or nothing yet for a required one. */
function fill(plan: RecordPlan, index: number): void {
  const field = plan.fields[index]!
  plan.starts[index] = writingAt()
  if (field.role === ingestField) {
    const value = ingestNow[field.ingest!]
    field.writeIngest!(value === undefined ? null : value)
    plan.seen[index] = filled
  } else if (field.optional) {
    writeUnionBranch(0) // null; extra_fields_json is null too, as an unknown key is declined
    plan.seen[index] = filled
  } else plan.seen[index] = missing
  plan.ends[index] = writingAt()
}

/**
 * A record, its fields in the schema's order whatever the keys' order: each field's bytes are
 * written as its key comes, and keys out of the schema's order make the record be rewritten in
 * order at its end (rare: the platform sends them in order).
 */
function writeRecord(plan: RecordPlan): boolean {
  at++
  const { fields, starts, ends, seen } = plan
  const count = fields.length
  seen.fill(unseen)
  const start = writingAt()
  let next = 0
  let reordered = false
  let code = skipWhitespace()
  if (code !== closeBrace)
    for (;;) {
      if (code !== quote) return false
      const index = matchKey(plan, next)
      if (index < 0 || seen[index] === real) return false // unknown (or escaped) or duplicate key
      if (skipWhitespace() !== colon) return false
      at++
      skipWhitespace()
      if (index >= next) {
        for (; next < index; next++) fill(plan, next)
        next = index + 1
      } else reordered = true
      const field = fields[index]!
      starts[index] = writingAt()
      if (source[at] === 0x6e) {
        // null: optional fields only
        if (!field.optional || !literal('null')) return false
        writeUnionBranch(0)
      } else {
        if (field.optional) writeUnionBranch(1)
        if (!writeValue(field.value!, field.special)) return false
      }
      ends[index] = writingAt()
      seen[index] = real
      code = skipWhitespace()
      if (code === closeBrace) break
      if (code !== comma) return false
      at++
      code = skipWhitespace()
    }
  at++
  for (; next < count; next++) fill(plan, next)
  for (let index = 0; index < count; index++) if (seen[index] === missing) return false
  if (reordered) rewriteInFieldOrder(start, starts, ends, count)
  return true
}

function writeEvent(): boolean {
  if (skipWhitespace() !== openBrace || !writeRecord(eventPlan)) return false
  return skipWhitespace() === undefined && sessionId !== undefined
}

/**
 * A ConversationComplete body's Avro record with the ingestion metadata (after wireHeaderBytes
 * left for the wire header, as validateAndEncode) and its session id, or undefined when the
 * fast path is not sure: then the body goes the way of parseJsonBody and classifyWebhook.
 */
export function transcodeConversation(
  body: Buffer,
  ingest: IngestMetadata,
): { sessionId: string; avro: Buffer } | undefined {
  if (!isUtf8(body)) return undefined
  source = body
  words =
    body.byteOffset % 4 === 0 ? new Int32Array(body.buffer, body.byteOffset, body.length >> 2) : undefined
  // A byte-order mark is dropped, as the UTF-8 decoding of the other path does.
  at = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0
  ingestNow = ingest
  sessionId = undefined
  try {
    const avro = writeMessage(writeEvent)
    return avro === undefined || sessionId === undefined ? undefined : { sessionId, avro }
  } finally {
    source = noBody // the body is not kept alive by this module
    words = undefined
    sessionId = undefined
  }
}
