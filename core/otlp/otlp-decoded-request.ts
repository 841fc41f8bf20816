import type { OtlpAttribute, OtlpSpan } from './otlp-spans.ts'

// An ExportTraceServiceRequest as the decoders (protobuf and JSON) hand it over: already in the
// contract's shapes (hex ids, microseconds, typed attributes), but not yet checked, grouped or
// redacted. An id that is absent or of the wrong size stays as the decoder read it (hex of any
// length, or ''), so that the grouping step can reject that span alone (OTLP partial success).
export interface DecodedSpan extends OtlpSpan {
  trace_id: string
}

export interface DecodedResourceSpans {
  resource_attributes: OtlpAttribute[]
  spans: DecodedSpan[]
}

/** A body that is not an ExportTraceServiceRequest (answered 400, never retried by exporters). */
export class OtlpDecodeError extends Error {
  override name = 'OtlpDecodeError'
}

/** A contract attribute with no value set yet (the decoder sets exactly one). */
export function emptyAttribute(key: string): OtlpAttribute {
  return { key, string_value: null, int_value: null, double_value: null, bool_value: null, json_value: null }
}
