import type { OtlpSpan, OtlpSpans } from '../../core/otlp/otlp-spans.ts'

// Spans and span messages of the contract (core/otlp/otlp-spans.ts) for unit tests: every field
// at its empty value but the id and name, and what a test changes.
export function testSpan(id: string, name = 'child', changes: Partial<OtlpSpan> = {}): OtlpSpan {
  return {
    span_id: id,
    parent_span_id: null,
    name,
    kind: 1,
    start_time_us: 1,
    end_time_us: 2,
    status_code: 0,
    status_message: null,
    scope_name: null,
    scope_version: null,
    attributes: [],
    events: [],
    ...changes,
  }
}

/** One message of the spans topic: `spans` of trace `traceId`, source `s`, received at 0. */
export const spansMessage = (traceId: string, ...spans: OtlpSpan[]): OtlpSpans => ({
  source: 's',
  received_at: 0,
  trace_id: traceId,
  resource_attributes: [],
  spans,
})
