import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import type { InjectOptions } from 'fastify'
import { afterAll, describe, expect, it } from 'vitest'
import { topics } from '../../core/kafka/topics.ts'
import type { OtlpSpans } from '../../core/otlp/otlp-spans.ts'
import { piiRedactions } from '../../core/privacy/pii/pii-settings.ts'
import { otlpTracesRoute } from '../../services/ingress/otlp-route.ts'
import {
  buildStandInIngress,
  publishFailures,
  standInOtlpCodec,
  standInOtlpSchemaId,
  testSecrets,
} from '../support/ingress-stand-in.ts'
import {
  encodeOtlpJsonAsProtobuf,
  exportTraceServiceResponse,
  otlpProtoRoot,
} from '../support/otlp-proto-types.ts'

// POST /v1/traces through the app with a stand-in publisher: what reaches the publisher (one
// Avro message per trace and resource, keyed by trace id, PII removed) and every answer: 200 with
// an ExportTraceServiceResponse (partial success for rejected spans), 400, 401, 413, 415 and 503 +
// Retry-After, each with a google.rpc.Status in the request's encoding, never echoing a secret.
const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/otlp/${name}.json`, import.meta.url), 'utf8'))
const livekit = fixture('livekit-1.x-conversation')
const pipecat = fixture('pipecat-conversation')
const livekitProtobuf = encodeOtlpJsonAsProtobuf(livekit)
const statusType = otlpProtoRoot.lookupType(
  'opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess',
)
const bodyLimit = 256 * 1024

type Encoding = 'protobuf' | 'json'
const contentType = { protobuf: 'application/x-protobuf', json: 'application/json' }

/** google.rpc.Status { code = 1; message = 2 } read back (same two fields as ExportTracePartialSuccess). */
function status(encoding: Encoding, body: Buffer) {
  if (encoding === 'json') return JSON.parse(body.toString()) as { code: number; message: string }
  const fields = statusType.toObject(statusType.decode(body), { longs: Number }) as {
    rejectedSpans?: number
    errorMessage?: string
  }
  return { code: fields.rejectedSpans ?? 0, message: fields.errorMessage ?? '' }
}

describe('POST /v1/traces (inject, stand-in publisher)', () => {
  const ingress = buildStandInIngress({
    bodyLimitBytes: bodyLimit,
    piiRedaction: piiRedactions({ PII_POLICY: 'staging:content=drop,tools=drop' }, ['prod', 'staging']),
  })
  afterAll(() => ingress.app.close())
  const answers: string[] = []

  async function post(
    body: Buffer | string,
    options: { encoding?: Encoding; token?: string | null; headers?: Record<string, string> } = {},
  ) {
    const encoding = options.encoding ?? 'protobuf'
    const token = options.token === undefined ? testSecrets.prod : options.token
    const request: InjectOptions = {
      method: 'POST',
      url: otlpTracesRoute,
      headers: {
        'content-type': contentType[encoding],
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...options.headers,
      },
      payload: body,
    }
    const response = await ingress.app.inject(request)
    answers.push(JSON.stringify(response.headers), response.body)
    return response
  }
  const published = async (from: number) =>
    Promise.all(
      ingress.publisher.published.slice(from).map(async ({ topic, message }) => ({
        topic,
        key: message.key,
        headers: message.headers,
        schemaId: message.value.readInt32BE(1),
        value: (await standInOtlpCodec.decode(message.value)) as OtlpSpans,
      })),
    )

  it.each([
    ['protobuf', livekitProtobuf],
    ['json', JSON.stringify(livekit)],
  ] as const)(
    'takes %s: one message per trace keyed by trace id, 200 with an empty response',
    async (encoding, body) => {
      const before = ingress.publisher.published.length
      const response = await post(body, { encoding })
      expect(response.statusCode).toBe(200)
      expect(response.headers['content-type']).toBe(contentType[encoding])
      if (encoding === 'json') expect(response.json()).toEqual({})
      else expect(response.rawPayload.length).toBe(0)
      const messages = await published(before)
      expect(messages).toHaveLength(1)
      const [message] = messages
      expect(message!.topic).toBe(topics.otlpSpans)
      expect(message!.key).toBe('5eade0fb39516216da3a12d943e0eba0')
      expect(message!.schemaId).toBe(standInOtlpSchemaId)
      expect(message!.headers).toBeUndefined() // prod keeps everything
      expect(message!.value).toMatchObject({ source: 'prod', trace_id: message!.key })
      expect(message!.value.spans).toHaveLength(53)
      expect(message!.value.spans[0]).toMatchObject({
        name: 'agent_session',
        start_time_us: 1795834346590599,
      })
    },
  )

  it('decodes protobuf and JSON of both fixtures to the same messages', async () => {
    for (const request of [livekit, pipecat]) {
      const before = ingress.publisher.published.length
      await post(gzipSync(encodeOtlpJsonAsProtobuf(request)), { headers: { 'content-encoding': 'gzip' } })
      await post(gzipSync(JSON.stringify(request)), {
        encoding: 'json',
        headers: { 'content-encoding': 'gzip' },
      })
      const [fromProtobuf, fromJson] = (await published(before)).map(({ value }) => ({
        ...value,
        received_at: 0,
      }))
      expect(fromJson).toEqual(fromProtobuf)
    }
  })

  it('splits a request by trace and by resource', async () => {
    const second = structuredClone(pipecat.resourceSpans[0])
    for (const span of second.scopeSpans.flatMap((scope: { spans: object[] }) => scope.spans))
      (span as { traceId: string }).traceId = 'c'.repeat(32)
    const request = { resourceSpans: [...livekit.resourceSpans, ...pipecat.resourceSpans, second] }
    const before = ingress.publisher.published.length
    expect((await post(encodeOtlpJsonAsProtobuf(request))).statusCode).toBe(200)
    const messages = await published(before)
    expect(messages.map(({ key, value }) => [key, value.spans.length])).toEqual([
      ['5eade0fb39516216da3a12d943e0eba0', 53],
      [pipecat.resourceSpans[0].scopeSpans[0].spans[0].traceId, 18],
      ['c'.repeat(32), 18],
    ])
  })

  it.each(['protobuf', 'json'] as const)(
    'answers a partial success (%s) for spans with bad ids, and stores the rest',
    async (encoding) => {
      const request = structuredClone(pipecat)
      const spans = request.resourceSpans[0].scopeSpans.flatMap((scope: { spans: object[] }) => scope.spans)
      spans[0].traceId = ''
      spans[1].spanId = '00000000'
      const before = ingress.publisher.published.length
      const body = encoding === 'json' ? JSON.stringify(request) : encodeOtlpJsonAsProtobuf(request)
      const response = await post(body, { encoding })
      expect(response.statusCode).toBe(200)
      const expected = {
        rejectedSpans: 2,
        errorMessage:
          '1 span(s) rejected: trace id is not 16 bytes (32 hex digits) or is all zero; ' +
          '1 span(s) rejected: span id is not 8 bytes (16 hex digits) or is all zero',
      }
      if (encoding === 'json')
        expect(response.json()).toEqual({ partialSuccess: { ...expected, rejectedSpans: '2' } })
      else
        expect(
          exportTraceServiceResponse.toObject(exportTraceServiceResponse.decode(response.rawPayload), {
            longs: Number,
          }),
        ).toEqual({ partialSuccess: expected })
      expect((await published(before))[0]!.value.spans).toHaveLength(16)
    },
  )

  it("applies the source's PII policy and records it in va-pii-policy", async () => {
    const before = ingress.publisher.published.length
    const response = await post(livekitProtobuf, { token: testSecrets.staging })
    expect(response.statusCode).toBe(200)
    const [message] = await published(before)
    expect(message!.headers?.['va-pii-policy']).toMatch(/^phone=keep,content=drop,audio_url=keep,tools=drop,/)
    const keys = new Set(message!.value.spans.flatMap((span) => span.attributes.map((a) => a.key)))
    for (const removed of [
      'lk.pii.user_transcript',
      'lk.pii.response.text',
      'lk.pii.chat_ctx',
      'lk.pii.function_tool.arguments',
    ])
      expect(keys.has(removed), removed).toBe(false)
    expect(keys.has('lk.e2e_latency')).toBe(true)
    expect(JSON.stringify(message!.value)).not.toContain('Tokyo')
  })

  it.each(['protobuf', 'json'] as const)(
    'answers 401 (%s) without a valid token, as a google.rpc.Status',
    async (encoding) => {
      for (const token of [null, 'wrong-secret-123456789']) {
        const response = await post(livekitProtobuf, { encoding, token })
        expect(response.statusCode).toBe(401)
        expect(response.headers['content-type']).toBe(contentType[encoding])
        expect(status(encoding, response.rawPayload)).toEqual({
          code: 16,
          message: 'missing or wrong webhook token (?token=... or Authorization: Bearer ...)',
        })
      }
    },
  )

  it('takes the token as ?token= too', async () => {
    const response = await ingress.app.inject({
      method: 'POST',
      url: `${otlpTracesRoute}?token=${testSecrets.prod}`,
      headers: { 'content-type': contentType.protobuf },
      payload: livekitProtobuf,
    })
    expect(response.statusCode).toBe(200)
  })

  it('answers 415 to another content type or content encoding', async () => {
    const cases: Record<string, string>[] = [
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/grpc' },
      { 'content-encoding': 'br' },
    ]
    for (const headers of cases) {
      const response = await post(livekitProtobuf, { headers })
      expect(response.statusCode, JSON.stringify(headers)).toBe(415)
      const encoding = headers['content-type'] ? 'json' : 'protobuf'
      expect(status(encoding, response.rawPayload)).toEqual({
        code: 3,
        message: headers['content-type']
          ? 'content type must be application/x-protobuf or application/json'
          : 'content encoding must be gzip or identity',
      })
    }
  })

  it('answers 400 to a body that is not a request (protobuf, JSON, gzip)', async () => {
    const cases: Array<[Buffer | string, Encoding, Record<string, string>]> = [
      [livekitProtobuf.subarray(0, 1000), 'protobuf', {}],
      ['{"resourceSpans": [', 'json', {}],
      ['{"resourceSpans": {}}', 'json', {}],
      [livekitProtobuf, 'protobuf', { 'content-encoding': 'gzip' }],
    ]
    for (const [body, encoding, headers] of cases) {
      const response = await post(body, { encoding, headers })
      expect(response.statusCode).toBe(400)
      expect(status(encoding, response.rawPayload).code).toBe(3)
    }
  })

  it('answers 413 over the body limit, compressed or once inflated (a gzip bomb), without storing anything', async () => {
    const before = ingress.publisher.published.length
    const large = Buffer.alloc(bodyLimit + 1)
    const bomb = gzipSync(Buffer.alloc(64 * bodyLimit))
    expect(bomb.length).toBeLessThan(bodyLimit)
    for (const [body, headers] of [
      [large, {}],
      [bomb, { 'content-encoding': 'gzip' }],
    ] as const) {
      const response = await post(body, { headers })
      expect(response.statusCode).toBe(413)
      expect(status('protobuf', response.rawPayload).code).toBe(8)
    }
    expect(ingress.publisher.published.length).toBe(before)
  })

  it('answers 503 + Retry-After while Kafka is away, with UNAVAILABLE; never 429', async () => {
    ingress.publisher.failWith(publishFailures.outage)
    try {
      for (const encoding of ['protobuf', 'json'] as const) {
        const response = await post(encoding === 'json' ? JSON.stringify(livekit) : livekitProtobuf, {
          encoding,
        })
        expect(response.statusCode).toBe(503)
        expect(response.headers['retry-after']).toBe('5')
        expect(status(encoding, response.rawPayload)).toEqual({
          code: 14,
          message: 'Kafka is not reachable; retry later',
        })
      }
    } finally {
      ingress.publisher.failWith(undefined)
    }
  })

  it('answers 503 + Retry-After while the span schema is not registered', async () => {
    const unregistered = buildStandInIngress({ otlpCodec: undefined })
    try {
      const response = await unregistered.app.inject({
        method: 'POST',
        url: otlpTracesRoute,
        headers: { 'content-type': contentType.protobuf, authorization: `Bearer ${testSecrets.prod}` },
        payload: livekitProtobuf,
      })
      expect(response.statusCode).toBe(503)
      expect(response.headers['retry-after']).toBe('5')
      expect(unregistered.publisher.published).toEqual([])
    } finally {
      await unregistered.app.close()
    }
  })

  it('counts spans by outcome and requests by status in /metrics', async () => {
    const metrics = await ingress.metrics()
    expect(metrics).toMatch(/ingress_otlp_spans_total\{outcome="accepted",service="ingress"\} 475\n/)
    expect(metrics).toMatch(/ingress_otlp_spans_total\{outcome="rejected",service="ingress"\} 4\n/)
    expect(metrics).toMatch(/ingress_otlp_spans_total\{outcome="refused",service="ingress"\} 106\n/)
    expect(metrics).toMatch(
      /ingress_http_requests_total\{route="\/v1\/traces",method="POST",status="200",service="ingress"\} \d+/,
    )
    expect(metrics).toMatch(
      /ingress_http_requests_total\{route="\/v1\/traces",method="POST",status="413",service="ingress"\} 2/,
    )
    expect(metrics).toMatch(
      /ingress_publish_duration_seconds_count\{service="ingress",topic="voice.otlp-spans.v1"\} \d+/,
    )
  })

  it('never echoes a secret in an answer', () => {
    const all = answers.join('\n')
    for (const secret of [testSecrets.prod, testSecrets.staging]) expect(all).not.toContain(secret)
  })
})
