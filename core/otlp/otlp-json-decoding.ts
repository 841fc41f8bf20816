import { safeLong } from '../event/avro-event-writer.ts'
import {
  type DecodedResourceSpans,
  type DecodedSpan,
  emptyAttribute,
  OtlpDecodeError,
} from './otlp-decoded-request.ts'
import { jsonDouble } from './otlp-protobuf-decoding.ts'
import type { OtlpAttribute, OtlpSpanEvent } from './otlp-spans.ts'

// ExportTraceServiceRequest in the OTLP/HTTP JSON encoding (already parsed) into the contract's
// shapes, giving exactly what the protobuf decoder gives for the same request: lowerCamelCase
// keys, hex ids, 64-bit integers as decimal strings (numbers accepted too), an integral double
// may be an intValue (the JS SDK's 0.0), unknown fields ignored. A structure of the wrong type
// (spans that are not an array...) is a 400; a bad id only rejects its span.
type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function list(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw new OtlpDecodeError(`${path} must be an array`)
  return value
}

function object(value: unknown, path: string): Json {
  if (value === undefined || value === null) return {}
  if (!isObject(value)) throw new OtlpDecodeError(`${path} must be an object`)
  return value
}

const optionalText = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null

/** A hex id lowercased; anything that is not a string reads as '' (rejected by the grouping). */
const id = (value: unknown): string => (typeof value === 'string' ? value.toLowerCase() : '')

const digits = /^-?\d+$/

/** Nanoseconds (a decimal string, or a number) as microseconds; exact for the string form. */
function micros(value: unknown, path: string): number {
  if (value === undefined || value === null) return 0
  let micros: number | undefined
  if (typeof value === 'number' && value >= 0) micros = Math.floor(value / 1000)
  else if (typeof value === 'string' && digits.test(value) && !value.startsWith('-'))
    micros = value.length <= 3 ? 0 : Number(value.slice(0, -3))
  if (micros === undefined || !(micros <= safeLong))
    throw new OtlpDecodeError(`${path} must be a non-negative integer (nanoseconds), as a decimal string`)
  return micros
}

/** An enum or int32 field; anything else reads as 0 (unspecified), as protobuf reads unknown values. */
const int32 = (value: unknown): number => (Number.isInteger(value) ? (value as number) | 0 : 0)

/** An int64 as a number when Avro can hold it exactly, else its exact decimal text. */
function int64(value: unknown, path: string): number | string {
  if (typeof value === 'number' && Number.isInteger(value))
    return Math.abs(value) <= safeLong ? value : BigInt(value).toString()
  if (typeof value === 'string' && digits.test(value)) {
    const exact = BigInt(value)
    return exact >= -safeLong && exact <= safeLong ? Number(exact) : exact.toString()
  }
  throw new OtlpDecodeError(`${path} must be an integer`)
}

function double(value: unknown, path: string): number {
  if (typeof value === 'number') return value
  if (value === 'NaN' || value === 'Infinity' || value === '-Infinity') return Number(value)
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value)
  throw new OtlpDecodeError(`${path} must be a number`)
}

/** An AnyValue in the canonical OTLP JSON form the protobuf decoder writes (json_value). */
function canonicalValue(value: unknown, path: string): Json {
  const any = object(value, path)
  if ('stringValue' in any) return { stringValue: String(any.stringValue) }
  if ('boolValue' in any) return { boolValue: any.boolValue === true }
  if ('intValue' in any) return { intValue: String(int64(any.intValue, `${path}.intValue`)) }
  if ('doubleValue' in any) return { doubleValue: jsonDouble(double(any.doubleValue, `${path}.doubleValue`)) }
  if ('arrayValue' in any) {
    const values = list(object(any.arrayValue, `${path}.arrayValue`).values, `${path}.arrayValue.values`)
    return {
      arrayValue: {
        values: values.map((item, index) => canonicalValue(item, `${path}.arrayValue.values[${index}]`)),
      },
    }
  }
  if ('kvlistValue' in any) {
    const values = list(object(any.kvlistValue, `${path}.kvlistValue`).values, `${path}.kvlistValue.values`)
    return {
      kvlistValue: {
        values: values.map((item, index) => {
          const entry = object(item, `${path}.kvlistValue.values[${index}]`)
          return {
            key: String(entry.key ?? ''),
            value: canonicalValue(entry.value, `${path}.kvlistValue.values[${index}].value`),
          }
        }),
      },
    }
  }
  if ('bytesValue' in any) return { bytesValue: String(any.bytesValue) }
  return {}
}

function attributes(value: unknown, path: string): OtlpAttribute[] {
  const decoded: OtlpAttribute[] = []
  for (const [index, item] of list(value, path).entries()) {
    const where = `${path}[${index}]`
    const entry = object(item, where)
    const any = object(entry.value, `${where}.value`)
    const attribute = emptyAttribute(String(entry.key ?? ''))
    if ('stringValue' in any) attribute.string_value = String(any.stringValue)
    else if ('boolValue' in any) attribute.bool_value = any.boolValue === true
    else if ('intValue' in any) {
      const int = int64(any.intValue, `${where}.value.intValue`)
      if (typeof int === 'number') attribute.int_value = int
      else attribute.json_value = JSON.stringify({ intValue: int })
    } else if ('doubleValue' in any)
      attribute.double_value = double(any.doubleValue, `${where}.value.doubleValue`)
    else if ('arrayValue' in any || 'kvlistValue' in any || 'bytesValue' in any)
      attribute.json_value = JSON.stringify(canonicalValue(any, `${where}.value`))
    else continue // an empty value: nothing to store
    decoded.push(attribute)
  }
  return decoded
}

function span(value: unknown, path: string, scope: Json): DecodedSpan {
  const span = object(value, path)
  const status = object(span.status, `${path}.status`)
  const parent = id(span.parentSpanId)
  return {
    trace_id: id(span.traceId),
    span_id: id(span.spanId),
    parent_span_id: parent === '' ? null : parent,
    name: typeof span.name === 'string' ? span.name : '',
    kind: int32(span.kind),
    start_time_us: micros(span.startTimeUnixNano, `${path}.startTimeUnixNano`),
    end_time_us: micros(span.endTimeUnixNano, `${path}.endTimeUnixNano`),
    status_code: int32(status.code),
    status_message: optionalText(status.message),
    scope_name: optionalText(scope.name),
    scope_version: optionalText(scope.version),
    attributes: attributes(span.attributes, `${path}.attributes`),
    events: list(span.events, `${path}.events`).map((item, index): OtlpSpanEvent => {
      const where = `${path}.events[${index}]`
      const event = object(item, where)
      return {
        name: typeof event.name === 'string' ? event.name : '',
        time_us: micros(event.timeUnixNano, `${where}.timeUnixNano`),
        attributes: attributes(event.attributes, `${where}.attributes`),
      }
    }),
  }
}

/** Decodes a parsed OTLP JSON body; throws OtlpDecodeError naming the first misfit's path. */
export function decodeOtlpJson(body: unknown): DecodedResourceSpans[] {
  if (!isObject(body)) throw new OtlpDecodeError('the body must be a JSON object (ExportTraceServiceRequest)')
  return list(body.resourceSpans, 'resourceSpans').map((item, index) => {
    const path = `resourceSpans[${index}]`
    const resourceSpans = object(item, path)
    const resource = object(resourceSpans.resource, `${path}.resource`)
    return {
      resource_attributes: attributes(resource.attributes, `${path}.resource.attributes`),
      spans: list(resourceSpans.scopeSpans, `${path}.scopeSpans`).flatMap((scopeItem, scopeIndex) => {
        const scopePath = `${path}.scopeSpans[${scopeIndex}]`
        const scopeSpans = object(scopeItem, scopePath)
        const scope = object(scopeSpans.scope, `${scopePath}.scope`)
        return list(scopeSpans.spans, `${scopePath}.spans`).map((spanItem, spanIndex) =>
          span(spanItem, `${scopePath}.spans[${spanIndex}]`, scope),
        )
      }),
    }
  })
}
