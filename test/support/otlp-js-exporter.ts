import { readFileSync } from 'node:fs'
import type { AttributeValue, HrTime } from '@opentelemetry/api'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import type { ReadableSpan } from '@opentelemetry/sdk-trace'

// The OpenTelemetry JS SDK's own OTLP/HTTP exporters (protobuf: exporter-trace-otlp-proto, JSON:
// exporter-trace-otlp-http) sending a fixture's spans (test/fixtures/otlp/, the frameworks' real
// output) as the SDK's finished spans, with their ids and times: what an agent process using the
// JS SDK would send. Gzipped, bearer token in the Authorization header, chunked body.
type JsonValue = {
  stringValue?: string
  boolValue?: boolean
  intValue?: string
  doubleValue?: number
  arrayValue?: { values?: JsonValue[] }
}
type KeyValue = { key: string; value: JsonValue }
interface FixtureSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind?: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  status?: { code?: number; message?: string }
  attributes?: KeyValue[]
  events?: Array<{ name: string; timeUnixNano: string; attributes?: KeyValue[] }>
}
export interface FixtureRequest {
  resourceSpans: Array<{
    resource?: { attributes?: KeyValue[] }
    scopeSpans: Array<{ scope?: { name?: string; version?: string }; spans: FixtureSpan[] }>
  }>
}

export function readFixture(name: string): FixtureRequest {
  return JSON.parse(readFileSync(new URL(`../fixtures/otlp/${name}.json`, import.meta.url), 'utf8'))
}

function value(any: JsonValue): AttributeValue | undefined {
  if (any.stringValue !== undefined) return any.stringValue
  if (any.boolValue !== undefined) return any.boolValue
  if (any.intValue !== undefined) return Number(any.intValue)
  if (any.doubleValue !== undefined) return any.doubleValue
  if (any.arrayValue !== undefined)
    return (any.arrayValue.values ?? []).map((item) => value(item)) as AttributeValue
  return undefined
}

const attributes = (list: KeyValue[] = []) =>
  Object.fromEntries(
    list.flatMap(({ key, value: any }) => (value(any) === undefined ? [] : [[key, value(any)!]])),
  )

function hrTime(nanos: string | bigint): HrTime {
  const total = BigInt(nanos)
  return [Number(total / 1_000_000_000n), Number(total % 1_000_000_000n)]
}

/** A fixture's spans as the JS SDK's finished spans. */
export function readableSpans(request: FixtureRequest): ReadableSpan[] {
  return request.resourceSpans.flatMap((resourceSpans) => {
    const resource = resourceFromAttributes(attributes(resourceSpans.resource?.attributes))
    return resourceSpans.scopeSpans.flatMap(({ scope, spans }) =>
      spans.map((span): ReadableSpan => {
        const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: 1 }
        return {
          name: span.name,
          kind: Math.max((span.kind ?? 1) - 1, 0), // OTLP counts kinds from 1 (INTERNAL), the JS API from 0
          spanContext: () => context,
          ...(span.parentSpanId ? { parentSpanContext: { ...context, spanId: span.parentSpanId } } : {}),
          startTime: hrTime(span.startTimeUnixNano),
          endTime: hrTime(span.endTimeUnixNano),
          duration: hrTime(BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)),
          ended: true,
          status: {
            code: span.status?.code ?? 0,
            ...(span.status?.message ? { message: span.status.message } : {}),
          },
          attributes: attributes(span.attributes),
          links: [],
          events: (span.events ?? []).map((event) => ({
            name: event.name,
            time: hrTime(event.timeUnixNano),
            attributes: attributes(event.attributes),
          })),
          resource,
          instrumentationScope: {
            name: scope?.name ?? '',
            ...(scope?.version ? { version: scope.version } : {}),
          },
          droppedAttributesCount: 0,
          droppedEventsCount: 0,
          droppedLinksCount: 0,
        }
      }),
    )
  })
}

/** Exports spans with the JS SDK's exporter; resolves with its verdict (code 0: accepted). */
export async function exportWithJs(
  spans: ReadableSpan[],
  options: { url: string; token: string; encoding: 'protobuf' | 'json'; timeoutMillis?: number },
): Promise<{ code: number; error?: Error }> {
  const Exporter = options.encoding === 'json' ? JsonExporter : ProtobufExporter
  const exporter = new Exporter({
    url: options.url,
    compression: 'gzip' as never, // CompressionAlgorithm.GZIP
    headers: { Authorization: `Bearer ${options.token}` },
    timeoutMillis: options.timeoutMillis ?? 10_000,
  })
  try {
    return await new Promise((resolve) => exporter.export(spans, resolve))
  } finally {
    await exporter.shutdown()
  }
}
