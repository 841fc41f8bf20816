// The bodies of the receiver's answers, in the request's encoding (OTLP/HTTP, opentelemetry-proto
// v1.11.0 docs/specification.md): success is an ExportTraceServiceResponse, with partialSuccess
// when spans were rejected; failure is a google.rpc.Status. Both are two small messages, written
// here rather than through a protobuf library (field 1 and 2 of each).
export type OtlpEncoding = 'protobuf' | 'json'

export const otlpContentTypes: Record<OtlpEncoding, string> = {
  protobuf: 'application/x-protobuf',
  json: 'application/json',
}

function varint(value: number): number[] {
  const bytes: number[] = []
  let rest = value
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80)
    rest = Math.floor(rest / 0x80)
  }
  bytes.push(rest)
  return bytes
}

/** Field 1 (varint) and field 2 (string) of a message, each left out when it is its default. */
function numberAndText(number: number, text: string): Buffer {
  const textBytes = Buffer.from(text)
  return Buffer.concat([
    Buffer.from(number === 0 ? [] : [0x08, ...varint(number)]),
    Buffer.from(textBytes.length === 0 ? [] : [0x12, ...varint(textBytes.length)]),
    textBytes,
  ])
}

/** ExportTraceServiceResponse: empty on full success, else partial_success (field 1). */
export function exportResponse(encoding: OtlpEncoding, rejectedSpans: number, errorMessage: string): Buffer {
  if (encoding === 'json')
    return Buffer.from(
      JSON.stringify(
        rejectedSpans === 0 && errorMessage === ''
          ? {}
          : { partialSuccess: { rejectedSpans: String(rejectedSpans), errorMessage } },
      ),
    )
  if (rejectedSpans === 0 && errorMessage === '') return Buffer.alloc(0)
  const partial = numberAndText(rejectedSpans, errorMessage)
  return Buffer.concat([Buffer.from([0x0a, ...varint(partial.length)]), partial])
}

/** The gRPC code of an HTTP status, as google.rpc.Status carries it. */
export function grpcCode(httpStatus: number): number {
  switch (httpStatus) {
    case 400:
    case 415:
      return 3 // INVALID_ARGUMENT
    case 401:
      return 16 // UNAUTHENTICATED
    case 404:
      return 5 // NOT_FOUND
    case 413:
      return 8 // RESOURCE_EXHAUSTED
    case 503:
      return 14 // UNAVAILABLE
    default:
      return 13 // INTERNAL
  }
}

/** google.rpc.Status { code = 1; message = 2 } of an error answer. */
export function statusBody(encoding: OtlpEncoding, httpStatus: number, message: string): Buffer {
  const code = grpcCode(httpStatus)
  return encoding === 'json' ? Buffer.from(JSON.stringify({ code, message })) : numberAndText(code, message)
}
