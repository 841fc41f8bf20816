import type { DecodedResourceSpans } from '../../core/otlp/otlp-decoded-request.ts'
import type { OtlpAttribute } from '../../core/otlp/otlp-spans.ts'

// A library's decoded ExportTraceServiceRequest (protobufjs and @bufbuild/protobuf both name the
// fields in lowerCamelCase) in the contract's shapes, given the library's own conversions of
// ids, 64-bit times and attribute lists: the "+ shapes" rows of bench/otlp-decode-bench.ts.
export interface LibraryConversions<Id, Nanos, KeyValues> {
  hex: (id: Id) => string
  hasBytes: (id: Id | undefined) => boolean
  micros: (nanos: Nanos) => number
  attributes: (list: KeyValues | undefined) => OtlpAttribute[]
}

interface Span<Id, Nanos, KeyValues> {
  traceId: Id
  spanId: Id
  parentSpanId?: Id
  name: string
  kind: number
  startTimeUnixNano: Nanos
  endTimeUnixNano: Nanos
  status?: { code?: number; message?: string } | undefined
  attributes?: KeyValues
  events?: Array<{ name: string; timeUnixNano: Nanos; attributes?: KeyValues }>
}

interface Request<Id, Nanos, KeyValues> {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValues } | undefined
    scopeSpans?: Array<{
      scope?: { name?: string; version?: string } | undefined
      spans?: Array<Span<Id, Nanos, KeyValues>>
    }>
  }>
}

export function contractShapes<Id, Nanos, KeyValues>(
  request: Request<Id, Nanos, KeyValues>,
  convert: LibraryConversions<Id, Nanos, KeyValues>,
): DecodedResourceSpans[] {
  return (request.resourceSpans ?? []).map((resourceSpans) => ({
    resource_attributes: convert.attributes(resourceSpans.resource?.attributes),
    spans: (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => ({
        trace_id: convert.hex(span.traceId),
        span_id: convert.hex(span.spanId),
        parent_span_id: convert.hasBytes(span.parentSpanId) ? convert.hex(span.parentSpanId!) : null,
        name: span.name,
        kind: span.kind,
        start_time_us: convert.micros(span.startTimeUnixNano),
        end_time_us: convert.micros(span.endTimeUnixNano),
        status_code: span.status?.code ?? 0,
        status_message: span.status?.message || null,
        scope_name: scopeSpans.scope?.name || null,
        scope_version: scopeSpans.scope?.version || null,
        attributes: convert.attributes(span.attributes),
        events: (span.events ?? []).map((event) => ({
          name: event.name,
          time_us: convert.micros(event.timeUnixNano),
          attributes: convert.attributes(event.attributes),
        })),
      })),
    ),
  }))
}
