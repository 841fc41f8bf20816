import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'

// The vendored opentelemetry-proto v1.11.0 files (schemas/otlp/) loaded with protobufjs, for
// tests and benchmarks: an encoder independent of the receiver's own decoder, and the
// protobufjs candidate of the decoder measurement (bench/otlp-decode-bench.ts).
const protoRoot = fileURLToPath(new URL('../../schemas/otlp/', import.meta.url))

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root()
  root.resolvePath = (_origin, target) => (target.startsWith(protoRoot) ? target : `${protoRoot}${target}`)
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: false })
  root.resolveAll()
  return root
}

export const otlpProtoRoot = loadRoot()
export const exportTraceServiceRequest = otlpProtoRoot.lookupType(
  'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
)
export const exportTraceServiceResponse = otlpProtoRoot.lookupType(
  'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse',
)

const idFields = new Set(['traceId', 'spanId', 'parentSpanId'])

/** OTLP JSON (hex ids) as the object protobufjs's fromObject takes (bytes as Buffers). */
function withByteIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withByteIds)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      idFields.has(key) && typeof item === 'string' ? Buffer.from(item, 'hex') : withByteIds(item),
    ]),
  )
}

/** An ExportTraceServiceRequest in OTLP JSON (a fixture) encoded as protobuf. */
export function encodeOtlpJsonAsProtobuf(request: unknown): Buffer {
  const message = exportTraceServiceRequest.fromObject(withByteIds(request) as Record<string, unknown>)
  return Buffer.from(exportTraceServiceRequest.encode(message).finish())
}
