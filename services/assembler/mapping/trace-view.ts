import { type AttributeMap, attributeMap } from '../../../core/otlp/otlp-attributes.ts'
import type { OtlpAttribute, OtlpSpan } from '../../../core/otlp/otlp-spans.ts'

// One trace's spans as the mappings read them: each span once (a span re-sent by a retried export
// counts once), in start order, with its attributes looked up by key and its children by parent.
export interface TraceInput {
  traceId: string
  /** The source of the first message of the trace. */
  source: string
  /** The resource of the first message (one SDK process sends one resource). */
  resourceAttributes: readonly OtlpAttribute[]
  spans: readonly OtlpSpan[]
}

export interface SpanView {
  span: OtlpSpan
  attributes: AttributeMap
}

export interface TraceView {
  traceId: string
  source: string
  resource: AttributeMap
  /** Start order (then span id, so that equal starts keep one order). */
  spans: SpanView[]
  byId: ReadonlyMap<string, SpanView>
  childrenOf(spanId: string): SpanView[]
  named(name: string): SpanView[]
}

export function traceView(input: TraceInput): TraceView {
  const byId = new Map<string, SpanView>()
  for (const span of input.spans)
    if (!byId.has(span.span_id)) byId.set(span.span_id, { span, attributes: attributeMap(span.attributes) })
  const spans = [...byId.values()].sort(
    (a, b) => a.span.start_time_us - b.span.start_time_us || (a.span.span_id < b.span.span_id ? -1 : 1),
  )
  const children = new Map<string, SpanView[]>()
  const names = new Map<string, SpanView[]>()
  for (const view of spans) {
    const parent = view.span.parent_span_id
    if (parent) children.set(parent, [...(children.get(parent) ?? []), view])
    names.set(view.span.name, [...(names.get(view.span.name) ?? []), view])
  }
  return {
    traceId: input.traceId,
    source: input.source,
    resource: attributeMap(input.resourceAttributes),
    spans,
    byId,
    childrenOf: (spanId) => children.get(spanId) ?? [],
    named: (name) => names.get(name) ?? [],
  }
}

/** The nearest ancestor (or the span itself) whose name is one of `names`, following parent ids. */
export function ancestorNamed(trace: TraceView, view: SpanView, names: ReadonlySet<string>): SpanView | null {
  let current: SpanView | undefined = view
  for (let depth = 0; current && depth < 64; depth++) {
    if (names.has(current.span.name)) return current
    const parent: string | null = current.span.parent_span_id
    current = parent ? trace.byId.get(parent) : undefined
  }
  return null
}
