import type Long from 'long'
import { type DecodedResourceSpans, emptyAttribute } from '../../core/otlp/otlp-decoded-request.ts'
import type { OtlpAttribute } from '../../core/otlp/otlp-spans.ts'
import { exportTraceServiceRequest, otlpProtoRoot } from '../../test/support/otlp-proto-types.ts'
import { contractShapes } from './library-message-shapes.ts'

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
  return contractShapes(exportTraceServiceRequest.decode(body) as Message, {
    hex: (id: Uint8Array) => Buffer.from(id).toString('hex'),
    hasBytes: (id) => (id?.length ?? 0) > 0,
    micros,
    attributes,
  })
}

/** Decoding alone, without building the contract shapes. */
export const decodeOnlyWithProtobufjs = (body: Buffer) => exportTraceServiceRequest.decode(body)
