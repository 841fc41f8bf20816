import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import autocannon from 'autocannon'
import { encodeOtlpJsonAsProtobuf } from '../test/support/otlp-proto-types.ts'
import { benchConnections, benchSecret } from './ingress-load.ts'

// The OTLP receiver's load (bench/otlp-ingress-bench.ts): the frameworks' real export requests
// (test/fixtures/otlp/: LiveKit's 53 spans, Pipecat's 18), each copy with trace and span ids of
// its own (so keys spread over partitions), as the Python exporter sends them: protobuf, gzip.
const fixtureNames = ['livekit-1.x-conversation', 'pipecat-conversation']
const copiesPerFixture = 100

/** A fixture with fresh ids, parents remapped to their new span ids. */
function withFreshIds(request: { resourceSpans: unknown[] }) {
  const text = JSON.stringify(request)
  const ids = new Map<string, string>()
  const fresh = (old: string, bytes: number) => {
    const known = ids.get(old)
    if (known !== undefined) return known
    const id = randomBytes(bytes).toString('hex')
    ids.set(old, id)
    return id
  }
  return JSON.parse(
    text.replace(/"(traceId|spanId|parentSpanId)":"([0-9a-f]+)"/g, (_, field: string, id: string) => {
      return `"${field}":"${fresh(id, field === 'traceId' ? 16 : 8)}"`
    }),
  )
}

export const otlpBodies = fixtureNames.flatMap((name) => {
  const request = JSON.parse(
    readFileSync(new URL(`../test/fixtures/otlp/${name}.json`, import.meta.url), 'utf8'),
  )
  return Array.from({ length: copiesPerFixture }, () => {
    const copy = withFreshIds(request)
    const spans = copy.resourceSpans.flatMap((r: { scopeSpans: { spans: unknown[] }[] }) =>
      r.scopeSpans.flatMap((s) => s.spans),
    ).length
    return { body: gzipSync(encodeOtlpJsonAsProtobuf(copy)), spans }
  })
})
/** Spans per request, on average over the bodies (autocannon cycles through them evenly). */
export const spansPerRequest = otlpBodies.reduce((sum, { spans }) => sum + spans, 0) / otlpBodies.length

/** Posts the bodies to /v1/traces at `port` for `seconds`. */
export function postTraces(port: number, seconds: number) {
  return autocannon({
    url: `http://127.0.0.1:${port}/v1/traces`,
    connections: benchConnections,
    duration: seconds,
    requests: otlpBodies.map(({ body }) => ({
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/x-protobuf',
        'content-encoding': 'gzip',
        authorization: `Bearer ${benchSecret}`,
      },
    })),
  })
}
