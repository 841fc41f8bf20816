// Sends a fixture's span tree with the OpenTelemetry JS SDK's own OTLP/HTTP exporter: the spans the
// frameworks produced (test/fixtures/otlp/*.json), turned back into the SDK's ReadableSpans with
// their ids and times, exported as protobuf (default) or JSON, gzipped.
//
//   npm install @opentelemetry/exporter-trace-otlp-proto@0.301.1 @opentelemetry/exporter-trace-otlp-http@0.301.0 \
//     @opentelemetry/resources@3.1.1 @opentelemetry/api@1.10.0          (Node >= 22.15)
//   node replay-fixture.mjs FIXTURE http://127.0.0.1:4318/v1/traces [SECRET] [json]
import { readFileSync } from 'node:fs'
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'

const [fixturePath, url, secret, encoding] = process.argv.slice(2)

function value(any) {
  if ('stringValue' in any) return any.stringValue
  if ('boolValue' in any) return any.boolValue
  if ('intValue' in any) return Number(any.intValue)
  if ('doubleValue' in any) return any.doubleValue
  if ('arrayValue' in any) return (any.arrayValue.values ?? []).map(value)
  return undefined
}

const attributes = (list = []) => Object.fromEntries(list.map((kv) => [kv.key, value(kv.value)]))

function hrTime(nanos) {
  const n = BigInt(nanos)
  return [Number(n / 1_000_000_000n), Number(n % 1_000_000_000n)]
}

function readableSpan(span, resource, scope) {
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: 1 }
  const start = hrTime(span.startTimeUnixNano)
  const end = hrTime(span.endTimeUnixNano)
  const nanos = BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)
  return {
    name: span.name,
    kind: (span.kind ?? 1) - 1, // OTLP numbers kinds from 1 (INTERNAL), the JS API from 0
    spanContext: () => context,
    parentSpanContext: span.parentSpanId
      ? { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: 1 }
      : undefined,
    startTime: start,
    endTime: end,
    duration: hrTime(nanos),
    ended: true,
    status: { code: span.status?.code ?? 0, message: span.status?.message },
    attributes: attributes(span.attributes),
    links: [],
    events: (span.events ?? []).map((event) => ({
      name: event.name,
      time: hrTime(event.timeUnixNano),
      attributes: attributes(event.attributes),
    })),
    resource,
    instrumentationScope: { name: scope.name, version: scope.version },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  }
}

const request = JSON.parse(readFileSync(fixturePath, 'utf8'))
const spans = request.resourceSpans.flatMap((rs) => {
  const resource = resourceFromAttributes(attributes(rs.resource?.attributes))
  return rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => readableSpan(span, resource, ss.scope ?? {})))
})

const Exporter = encoding === 'json' ? HttpJsonExporter : ProtobufExporter
const exporter = new Exporter({
  url,
  compression: 'gzip',
  headers: secret ? { Authorization: `Bearer ${secret}` } : {},
})
exporter.export(spans, (result) => {
  console.log(`${spans.length} spans: ${result.code === 0 ? 'accepted' : `failed: ${result.error}`}`)
  exporter.shutdown()
})
