import { safeLong } from '../event/avro-event-writer.ts'
import {
  type DecodedResourceSpans,
  type DecodedSpan,
  emptyAttribute,
  OtlpDecodeError,
} from './otlp-decoded-request.ts'
import type { OtlpAttribute, OtlpSpanEvent } from './otlp-spans.ts'

// ExportTraceServiceRequest (opentelemetry-proto v1.11.0, schemas/otlp/) from protobuf bytes
// straight into the contract's shapes. Written by hand for the trace subset because it measured
// several times faster than protobufjs and @bufbuild/protobuf on the real exporters' requests
// (bench/results/otlp.md): it builds no message objects for the fields no reader uses (links,
// trace state, dropped counts, schema URLs, flags are skipped) and no 64-bit integer objects.
// Field numbers are the .proto files'; unknown fields are skipped as protobuf requires.

// The bytes being read, the next byte's index (decoding is synchronous, one request at a time).
const nothing = Buffer.alloc(0)
let bytes: Buffer = nothing
let position = 0

const truncated = () => new OtlpDecodeError('the protobuf body is truncated or malformed')

function varint32(): number {
  let value = 0
  for (let shift = 0; shift < 35; shift += 7) {
    if (position >= bytes.length) throw truncated()
    const byte = bytes[position++]!
    value |= (byte & 0x7f) << shift
    if (byte < 0x80) return value >>> 0
  }
  // A negative int32 (an enum) is written in 10 bytes: its low 32 bits are read, skip the rest.
  for (let index = 0; index < 5; index++) {
    if (position >= bytes.length) throw truncated()
    if (bytes[position++]! < 0x80) return value >>> 0
  }
  throw truncated()
}

/** An int64 varint: a number when Avro can hold it exactly, else its exact decimal text. */
function varint64(): number | string {
  const start = position
  let value = 0
  let factor = 1
  for (let index = 0; index < 7; index++) {
    if (position >= bytes.length) throw truncated()
    const byte = bytes[position++]!
    value += (byte & 0x7f) * factor
    if (byte < 0x80) return value // at most 49 bits: exact
    factor *= 128
  }
  position = start
  let big = 0n
  for (let shift = 0n; shift < 70n; shift += 7n) {
    if (position >= bytes.length) throw truncated()
    const byte = bytes[position++]!
    big |= BigInt(byte & 0x7f) << shift
    if (byte < 0x80) {
      const signed = BigInt.asIntN(64, big)
      return signed >= -safeLong && signed <= safeLong ? Number(signed) : signed.toString()
    }
  }
  throw truncated()
}

/** Nanoseconds (fixed64) as microseconds, exactly: 2^32 ns = 4294967 µs + 296 ns. */
function fixed64Micros(): number {
  if (position + 8 > bytes.length) throw truncated()
  const low = bytes.readUInt32LE(position)
  const high = bytes.readUInt32LE(position + 4)
  position += 8
  const micros = high * 4294967 + Math.floor((high * 296 + low) / 1000)
  if (micros > safeLong) throw new OtlpDecodeError('a time is beyond the year 2255')
  return micros
}

/** The end of a length-delimited field that starts here. */
function lengthEnd(): number {
  const length = varint32()
  const end = position + length
  if (end > bytes.length) throw truncated()
  return end
}

function skip(wireType: number): void {
  switch (wireType) {
    case 0:
      varint64()
      return
    case 1:
      position += 8
      break
    case 2:
      position = lengthEnd()
      return
    case 5:
      position += 4
      break
    default:
      // Groups (3, 4) are not in these messages; anything else is not protobuf.
      throw new OtlpDecodeError(`the protobuf body has an unsupported wire type ${wireType}`)
  }
  if (position > bytes.length) throw truncated()
}

function text(end: number): string {
  const value = bytes.toString('utf8', position, end)
  position = end
  return value
}

function hex(end: number): string {
  const value = bytes.toString('hex', position, end)
  position = end
  return value
}

/** An AnyValue as its OTLP JSON encoding (json_value of arrays, key-value lists and bytes). */
function anyValueJson(end: number): Record<string, unknown> {
  let value: Record<string, unknown> = {}
  while (position < end) {
    const tag = varint32()
    switch (tag) {
      case 10:
        value = { stringValue: text(lengthEnd()) }
        break
      case 16:
        value = { boolValue: varint32() !== 0 }
        break
      case 24:
        value = { intValue: String(varint64()) }
        break
      case 33:
        value = { doubleValue: jsonDouble(double()) }
        break
      case 42: {
        const arrayEnd = lengthEnd()
        const values: unknown[] = []
        while (position < arrayEnd) {
          const inner = varint32()
          if (inner === 10) values.push(anyValueJson(lengthEnd()))
          else skip(inner & 7)
        }
        value = { arrayValue: { values } }
        break
      }
      case 50: {
        const listEnd = lengthEnd()
        const values: unknown[] = []
        while (position < listEnd) {
          const inner = varint32()
          if (inner === 10) values.push(keyValueJson(lengthEnd()))
          else skip(inner & 7)
        }
        value = { kvlistValue: { values } }
        break
      }
      case 58: {
        const bytesEnd = lengthEnd()
        value = { bytesValue: bytes.toString('base64', position, bytesEnd) }
        position = bytesEnd
        break
      }
      default:
        skip(tag & 7)
    }
  }
  return value
}

function keyValueJson(end: number): { key: string; value: Record<string, unknown> } {
  let key = ''
  let value: Record<string, unknown> = {}
  while (position < end) {
    const tag = varint32()
    if (tag === 10) key = text(lengthEnd())
    else if (tag === 18) value = anyValueJson(lengthEnd())
    else skip(tag & 7)
  }
  return { key, value }
}

/** proto3 JSON writes the doubles JSON cannot hold as strings. */
export function jsonDouble(value: number): number | string {
  return Number.isFinite(value) ? value : String(value)
}

function double(): number {
  if (position + 8 > bytes.length) throw truncated()
  const value = bytes.readDoubleLE(position)
  position += 8
  return value
}

/** A KeyValue as a contract attribute; undefined for an empty value (nothing to store). */
function attribute(end: number): OtlpAttribute | undefined {
  let key = ''
  let attribute: OtlpAttribute | undefined
  while (position < end) {
    const tag = varint32()
    if (tag === 10) key = text(lengthEnd())
    else if (tag === 18) attribute = attributeValue(lengthEnd())
    else skip(tag & 7)
  }
  if (attribute) attribute.key = key
  return attribute
}

function attributeValue(end: number): OtlpAttribute | undefined {
  const start = position
  let attribute: OtlpAttribute | undefined
  while (position < end) {
    const tag = varint32()
    switch (tag) {
      case 10:
        attribute = emptyAttribute('')
        attribute.string_value = text(lengthEnd())
        break
      case 16:
        attribute = emptyAttribute('')
        attribute.bool_value = varint32() !== 0
        break
      case 24: {
        const value = varint64()
        attribute = emptyAttribute('')
        if (typeof value === 'number') attribute.int_value = value
        else attribute.json_value = JSON.stringify({ intValue: value })
        break
      }
      case 33:
        attribute = emptyAttribute('')
        attribute.double_value = double()
        break
      case 42:
      case 50:
      case 58: {
        // Rare and nested: read again as OTLP JSON, from this value's start.
        position = start
        const json = anyValueJson(end)
        attribute = emptyAttribute('')
        attribute.json_value = JSON.stringify(json)
        return attribute
      }
      default:
        skip(tag & 7)
    }
  }
  return attribute
}

function attributesInto(list: OtlpAttribute[], end: number): void {
  const value = attribute(end)
  if (value) list.push(value)
}

function event(end: number): OtlpSpanEvent {
  const event: OtlpSpanEvent = { name: '', time_us: 0, attributes: [] }
  while (position < end) {
    const tag = varint32()
    if (tag === 9) event.time_us = fixed64Micros()
    else if (tag === 18) event.name = text(lengthEnd())
    else if (tag === 26) attributesInto(event.attributes, lengthEnd())
    else skip(tag & 7)
  }
  return event
}

function status(span: DecodedSpan, end: number): void {
  while (position < end) {
    const tag = varint32()
    if (tag === 18) span.status_message = text(lengthEnd()) || null
    else if (tag === 24) span.status_code = varint32() | 0
    else skip(tag & 7)
  }
}

function span(end: number): DecodedSpan {
  const span: DecodedSpan = {
    trace_id: '',
    span_id: '',
    parent_span_id: null,
    name: '',
    kind: 0,
    start_time_us: 0,
    end_time_us: 0,
    status_code: 0,
    status_message: null,
    scope_name: null,
    scope_version: null,
    attributes: [],
    events: [],
  }
  while (position < end) {
    const tag = varint32()
    switch (tag) {
      case 10:
        span.trace_id = hex(lengthEnd())
        break
      case 18:
        span.span_id = hex(lengthEnd())
        break
      case 34: {
        const parent = hex(lengthEnd())
        span.parent_span_id = parent === '' ? null : parent
        break
      }
      case 42:
        span.name = text(lengthEnd())
        break
      case 48:
        span.kind = varint32() | 0
        break
      case 57:
        span.start_time_us = fixed64Micros()
        break
      case 65:
        span.end_time_us = fixed64Micros()
        break
      case 74:
        attributesInto(span.attributes, lengthEnd())
        break
      case 90:
        span.events.push(event(lengthEnd()))
        break
      case 122:
        status(span, lengthEnd())
        break
      default:
        skip(tag & 7)
    }
  }
  return span
}

function scopeSpans(into: DecodedSpan[], end: number): void {
  let name: string | null = null
  let version: string | null = null
  const first = into.length
  while (position < end) {
    const tag = varint32()
    if (tag === 18) into.push(span(lengthEnd()))
    else if (tag === 10) {
      const scopeEnd = lengthEnd()
      while (position < scopeEnd) {
        const inner = varint32()
        if (inner === 10) name = text(lengthEnd())
        else if (inner === 18) version = text(lengthEnd())
        else skip(inner & 7)
      }
    } else skip(tag & 7)
  }
  // The scope may come after its spans on the wire: set once the message is read.
  for (let index = first; index < into.length; index++) {
    into[index]!.scope_name = name || null
    into[index]!.scope_version = version || null
  }
}

function resourceSpans(end: number): DecodedResourceSpans {
  const decoded: DecodedResourceSpans = { resource_attributes: [], spans: [] }
  while (position < end) {
    const tag = varint32()
    if (tag === 18) scopeSpans(decoded.spans, lengthEnd())
    else if (tag === 10) {
      const resourceEnd = lengthEnd()
      while (position < resourceEnd) {
        const inner = varint32()
        if (inner === 10) attributesInto(decoded.resource_attributes, lengthEnd())
        else skip(inner & 7)
      }
    } else skip(tag & 7)
  }
  return decoded
}

/** Decodes an ExportTraceServiceRequest; throws OtlpDecodeError for bytes that are not one. */
export function decodeOtlpProtobuf(body: Buffer): DecodedResourceSpans[] {
  bytes = body
  position = 0
  try {
    const decoded: DecodedResourceSpans[] = []
    while (position < body.length) {
      const tag = varint32()
      if (tag === 10) decoded.push(resourceSpans(lengthEnd()))
      else skip(tag & 7)
    }
    if (position !== body.length) throw truncated()
    return decoded
  } finally {
    bytes = nothing // the body is not kept alive by this module
  }
}
