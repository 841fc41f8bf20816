import { readFileSync } from 'node:fs'

// The contract of voice.otlp-spans.v1 (schemas/avro/otlp-spans.v1.avsc): the ingress writes one
// message per trace and resource of an OTLP export request; the assembler reads them. Links,
// dropped counts and trace state are not carried: no mapping uses them.
export const otlpSpansSchemaFile = new URL('../../schemas/avro/otlp-spans.v1.avsc', import.meta.url)
export const otlpSpansAvroSchema = JSON.parse(readFileSync(otlpSpansSchemaFile, 'utf8'))

export interface OtlpAttribute {
  key: string
  string_value: string | null
  int_value: number | null
  double_value: number | null
  bool_value: boolean | null
  /** Arrays, key-value lists and bytes, as their OTLP JSON encoding. */
  json_value: string | null
}

export interface OtlpSpanEvent {
  name: string
  time_us: number
  attributes: OtlpAttribute[]
}

export interface OtlpSpan {
  span_id: string
  parent_span_id: string | null
  name: string
  kind: number
  start_time_us: number
  end_time_us: number
  /** 0 unset, 1 ok, 2 error. */
  status_code: number
  status_message: string | null
  scope_name: string | null
  scope_version: string | null
  attributes: OtlpAttribute[]
  events: OtlpSpanEvent[]
}

export interface OtlpSpans {
  source: string
  /** Milliseconds since the epoch. */
  received_at: number
  trace_id: string
  resource_attributes: OtlpAttribute[]
  spans: OtlpSpan[]
}
