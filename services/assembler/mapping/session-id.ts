import { createHash } from 'node:crypto'

// A conversation's session_id from its trace (docs/otlp.md §8, question 2): the trace id's 128 bits
// written as a UUID, so that it fits the record's uuid format and is known from the trace's first
// span on (a delivery made before the root span arrived and one after get the same id). A trace
// with a second conversation root (a LiveKit session started again in one job) gets, for each
// later root, a UUID of the trace id and that root's span id (name-based, SHA-1, RFC 9562 v5 layout).
export function traceSessionId(traceId: string): string {
  const hex = traceId.toLowerCase().padStart(32, '0').slice(-32)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

export function rootSessionId(traceId: string, rootSpanId: string): string {
  const bytes = createHash('sha1').update(`${traceId}:${rootSpanId}`).digest().subarray(0, 16)
  bytes[6] = (bytes[6]! & 0x0f) | 0x50
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  return traceSessionId(bytes.toString('hex'))
}
