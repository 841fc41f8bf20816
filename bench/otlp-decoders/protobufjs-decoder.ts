import type Long from 'long'
import { type DecodedResourceSpans, emptyAttribute } from '../../core/otlp/otlp-decoded-request.ts'
import type { OtlpAttribute } from '../../core/otlp/otlp-spans.ts'
import { exportTraceServiceRequest, otlpProtoRoot } from '../../test/support/otlp-proto-types.ts'

// The protobufjs 8 candidate of the decoder measurement: reflection over the vendored .proto files
// (protobufjs compiles a decoder per type at first use), then the same contract shapes as the
// receiver's decoder (core/otlp/otlp-protobuf-decoding.ts) for a like-for-like figure.
const anyValueType = otlpProtoRoot.lookupType('opentelemetry.proto.common.v1.AnyValue')

// protobufjs's reflected messages are untyped.
// biome-ignore lint/suspicious/noExplicitAny: fields read as the .proto files name them
type Message = Record<string, any>

const micros = (nanos: Long | number) =>
  typeof nanos === 'number'
    ? Math.floor(nanos / 1000)
    : nanos.high * 4294967 + Math.floor(((nanos.high >>> 0) * 296 + (nanos.low >>> 0)) / 1000)

function attributes(list: Message[] | undefined): OtlpAttribute[] {
  const decoded: OtlpAttribute[] = []
  for (const keyValue of list ?? []) {
    const value = keyValue.value as Message | undefined
    if (!value) continue
    const attribute = emptyAttribute(keyValue.key)
    if (value.stringValue !== undefined && Object.hasOwn(value, 'stringValue'))
      attribute.string_value = value.stringValue
    else if (Object.hasOwn(value, 'boolValue')) attribute.bool_value = value.boolValue
    else if (Object.hasOwn(value, 'intValue'))
      attribute.int_value = typeof value.intValue === 'number' ? value.intValue : value.intValue.toNumber()
    else if (Object.hasOwn(value, 'doubleValue')) attribute.double_value = value.doubleValue
    else if (
      Object.hasOwn(value, 'arrayValue') ||
      Object.hasOwn(value, 'kvlistValue') ||
      Object.hasOwn(value, 'bytesValue')
    )
      attribute.json_value = JSON.stringify(
        anyValueType.toObject(value as never, { longs: String, bytes: String }),
      )
    else continue
    decoded.push(attribute)
  }
  return decoded
}

export function decodeWithProtobufjs(body: Buffer): DecodedResourceSpans[] {
  const request = exportTraceServiceRequest.decode(body) as Message
  return (request.resourceSpans ?? []).map((resourceSpans: Message) => ({
    resource_attributes: attributes(resourceSpans.resource?.attributes),
    spans: (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans: Message) =>
      (scopeSpans.spans ?? []).map((span: Message) => ({
        trace_id: Buffer.from(span.traceId).toString('hex'),
        span_id: Buffer.from(span.spanId).toString('hex'),
        parent_span_id: span.parentSpanId?.length ? Buffer.from(span.parentSpanId).toString('hex') : null,
        name: span.name,
        kind: span.kind,
        start_time_us: micros(span.startTimeUnixNano),
        end_time_us: micros(span.endTimeUnixNano),
        status_code: span.status?.code ?? 0,
        status_message: span.status?.message || null,
        scope_name: scopeSpans.scope?.name || null,
        scope_version: scopeSpans.scope?.version || null,
        attributes: attributes(span.attributes),
        events: (span.events ?? []).map((event: Message) => ({
          name: event.name,
          time_us: micros(event.timeUnixNano),
          attributes: attributes(event.attributes),
        })),
      })),
    ),
  }))
}

/** Decoding alone, without building the contract shapes. */
export const decodeOnlyWithProtobufjs = (body: Buffer) => exportTraceServiceRequest.decode(body)
