import { describe, expect, it } from 'vitest'
import { exportTraceServiceResponse, otlpProtoRoot } from '../../test/support/otlp-proto-types.ts'
import { exportResponse, grpcCode, statusBody } from './otlp-export-answer.ts'

// The answers' bodies, read back with the .proto files' own messages (protobufjs).
const partialSuccess = otlpProtoRoot.lookupType(
  'opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess',
)

describe('OTLP answers', () => {
  it('writes an empty response on full success', () => {
    expect(exportResponse('protobuf', 0, '').length).toBe(0)
    expect(exportResponse('json', 0, '').toString()).toBe('{}')
  })

  it('writes a partial success with the rejected count and why', () => {
    const message = 'x'.repeat(300) // a length of two varint bytes
    const decoded = exportTraceServiceResponse.decode(exportResponse('protobuf', 300, message))
    expect(exportTraceServiceResponse.toObject(decoded, { longs: Number })).toEqual({
      partialSuccess: { rejectedSpans: 300, errorMessage: message },
    })
    expect(JSON.parse(exportResponse('json', 3, 'bad ids').toString())).toEqual({
      partialSuccess: { rejectedSpans: '3', errorMessage: 'bad ids' },
    })
  })

  it('classifies HTTP statuses as gRPC codes: retryable 503 is UNAVAILABLE', () => {
    expect([400, 401, 404, 413, 415, 503, 500].map(grpcCode)).toEqual([3, 16, 5, 8, 3, 14, 13])
  })

  it('writes google.rpc.Status { code, message } in either encoding', () => {
    // Status and ExportTracePartialSuccess share their field numbers and wire types (1 varint, 2 string).
    const fields = partialSuccess.toObject(
      partialSuccess.decode(statusBody('protobuf', 503, 'retry later')),
      {
        longs: Number,
      },
    )
    expect(fields).toEqual({ rejectedSpans: 14, errorMessage: 'retry later' })
    expect(JSON.parse(statusBody('json', 401, 'no token').toString())).toEqual({
      code: 16,
      message: 'no token',
    })
  })
})
