import { readFileSync } from 'node:fs'
import type { OtlpAttribute, OtlpSpan, OtlpSpans } from '../../core/otlp/otlp-spans.ts'

// The OTLP/HTTP JSON fixtures (test/fixtures/otlp/) as the receiver puts them on the spans topic:
// one OtlpSpans per trace and resource, microsecond times, typed attribute values.
interface JsonValue {
  stringValue?: string
  intValue?: string | number
  doubleValue?: number
  boolValue?: boolean
  arrayValue?: unknown
  kvlistValue?: unknown
  bytesValue?: string
}
interface JsonKeyValue {
  key: string
  value: JsonValue
}
interface JsonSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind?: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes?: JsonKeyValue[]
  events?: { name: string; timeUnixNano: string; attributes?: JsonKeyValue[] }[]
  status?: { code?: number; message?: string }
}
interface JsonRequest {
  resourceSpans: {
    resource?: { attributes?: JsonKeyValue[] }
    scopeSpans: { scope?: { name?: string; version?: string }; spans: JsonSpan[] }[]
  }[]
}

export function otlpAttribute({ key, value }: JsonKeyValue): OtlpAttribute {
  const attribute: OtlpAttribute = {
    key,
    string_value: null,
    int_value: null,
    double_value: null,
    bool_value: null,
    json_value: null,
  }
  if (value.stringValue !== undefined) attribute.string_value = value.stringValue
  else if (value.intValue !== undefined) attribute.int_value = Number(value.intValue)
  else if (value.doubleValue !== undefined) attribute.double_value = value.doubleValue
  else if (value.boolValue !== undefined) attribute.bool_value = value.boolValue
  else if (value.arrayValue !== undefined) attribute.json_value = JSON.stringify(value.arrayValue)
  else if (value.kvlistValue !== undefined) attribute.json_value = JSON.stringify(value.kvlistValue)
  else if (value.bytesValue !== undefined) attribute.json_value = JSON.stringify(value.bytesValue)
  return attribute
}

const micros = (nanos: string): number => Number(BigInt(nanos) / 1000n)

/** One OtlpSpans per trace of each resource of the request. */
export function otlpSpansOf(request: JsonRequest, source = 'test', receivedAt = 0): OtlpSpans[] {
  const messages: OtlpSpans[] = []
  for (const resourceSpans of request.resourceSpans) {
    const byTrace = new Map<string, OtlpSpans>()
    for (const scopeSpans of resourceSpans.scopeSpans)
      for (const span of scopeSpans.spans) {
        let message = byTrace.get(span.traceId)
        if (!message) {
          message = {
            source,
            received_at: receivedAt,
            trace_id: span.traceId,
            resource_attributes: (resourceSpans.resource?.attributes ?? []).map(otlpAttribute),
            spans: [],
          }
          byTrace.set(span.traceId, message)
        }
        const converted: OtlpSpan = {
          span_id: span.spanId,
          parent_span_id: span.parentSpanId ? span.parentSpanId : null,
          name: span.name,
          kind: span.kind ?? 0,
          start_time_us: micros(span.startTimeUnixNano),
          end_time_us: micros(span.endTimeUnixNano),
          status_code: span.status?.code ?? 0,
          status_message: span.status?.message ?? null,
          scope_name: scopeSpans.scope?.name ?? null,
          scope_version: scopeSpans.scope?.version ?? null,
          attributes: (span.attributes ?? []).map(otlpAttribute),
          events: (span.events ?? []).map((event) => ({
            name: event.name,
            time_us: micros(event.timeUnixNano),
            attributes: (event.attributes ?? []).map(otlpAttribute),
          })),
        }
        message.spans.push(converted)
      }
    messages.push(...byTrace.values())
  }
  return messages
}

export const livekitFixtureFile = new URL('../fixtures/otlp/livekit-1.x-conversation.json', import.meta.url)
export const pipecatFixtureFile = new URL('../fixtures/otlp/pipecat-conversation.json', import.meta.url)

export function readOtlpFixture(file: URL, source = 'test'): OtlpSpans[] {
  return otlpSpansOf(JSON.parse(readFileSync(file, 'utf8')) as JsonRequest, source)
}

/**
 * A trace's spans split over `parts` messages as an SDK's batches would send them, in a shuffled
 * order (a fixed permutation: tests stay deterministic); the root span in the last part.
 */
export function splitIntoBatches(message: OtlpSpans, parts: number, rootName: string): OtlpSpans[] {
  const root = message.spans.filter((span) => span.name === rootName)
  const rest = message.spans.filter((span) => span.name !== rootName)
  // A fixed shuffle: every 7th span of the rest, stepping around.
  const shuffled: OtlpSpan[] = []
  for (let offset = 0; offset < 7; offset++)
    for (let index = offset; index < rest.length; index += 7) shuffled.push(rest[index]!)
  const size = Math.ceil(shuffled.length / parts)
  const messages: OtlpSpans[] = []
  for (let part = 0; part < parts; part++) {
    const spans = shuffled.slice(part * size, (part + 1) * size)
    if (part === parts - 1) spans.push(...root)
    messages.push({ ...message, spans })
  }
  return messages
}
