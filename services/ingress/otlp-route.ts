import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { topics } from '../../core/kafka/topics.ts'
import { OtlpDecodeError } from '../../core/otlp/otlp-decoded-request.ts'
import {
  exportResponse,
  type OtlpEncoding,
  otlpContentTypes,
  statusBody,
} from '../../core/otlp/otlp-export-answer.ts'
import { decodeOtlpJson } from '../../core/otlp/otlp-json-decoding.ts'
import { decodeOtlpProtobuf } from '../../core/otlp/otlp-protobuf-decoding.ts'
import type { OtlpSpansCodec } from '../../core/otlp/otlp-spans-codec.ts'
import { groupOtlpSpans } from '../../core/otlp/otlp-spans-grouping.ts'
import { type PiiRedaction, piiPolicyHeader } from '../../core/privacy/pii/pii-settings.ts'
import type { Logger } from '../../core/runtime/logger.ts'
import type { OutgoingMessage } from './batching-producer.ts'
import { badRequest, HttpError, toHttpError, unavailable } from './ingress-errors.ts'
import type { IngressMetrics } from './ingress-metrics.ts'
import { parseJsonBody } from './json-body.ts'
import { readOtlpBody } from './otlp-body.ts'
import { type KindWarning, publishFailure } from './publish-failure.ts'

// POST /v1/traces, the OTLP/HTTP trace receiver: protobuf or JSON, gzip or not, authenticated as
// the webhook is (before the body is read). One Kafka message per trace and resource of the
// request (core/otlp), with the source's PII policy applied; the answer is 200 with an
// ExportTraceServiceResponse only once Kafka has acknowledged every message of the request, a
// partial success when spans were rejected, 503 + Retry-After while Kafka or the registry is
// away (every exporter retries 503; docs/otlp.md §5), errors as google.rpc.Status.
export const otlpTracesRoute = '/v1/traces'

export interface OtlpRouteDependencies {
  bodyLimitBytes: number
  logger: Logger
  metrics: IngressMetrics
  /** The onRequest hook that sets request.source from the presented token, or throws 401. */
  authenticate: (request: FastifyRequest) => Promise<void>
  /** The codec once the span schema is registered; undefined while the registry cannot be reached. */
  codec: () => OtlpSpansCodec | undefined
  publish: (topic: string, message: OutgoingMessage) => Promise<void>
  piiRedaction?: (source: string) => PiiRedaction | undefined
  warnOncePerInterval: KindWarning
}

/** The encoding of a request (and so of its answer); JSON for anything else (a 415's answer). */
function encodingOf(request: FastifyRequest): OtlpEncoding {
  const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase()
  return type === otlpContentTypes.protobuf ? 'protobuf' : 'json'
}

const unsupportedType = () =>
  new HttpError(
    415,
    'unsupported_media_type',
    'content type must be application/x-protobuf or application/json',
  )

/** Fastify's refusals of a content type (no parser for it), answered with this route's types. */
const contentTypeRefusals = new Set(['FST_ERR_CTP_INVALID_MEDIA_TYPE', 'FST_ERR_CTP_INVALID_TYPE'])

function otlpHttpError(error: unknown): HttpError {
  if (error instanceof OtlpDecodeError)
    return badRequest(`not an ExportTraceServiceRequest: ${error.message}`, [
      { path: '', problem: 'undecodable' },
    ])
  if (contentTypeRefusals.has((error as { code?: string })?.code ?? '')) return unsupportedType()
  return toHttpError(error)
}

function send(reply: FastifyReply, encoding: OtlpEncoding, status: number, body: Buffer) {
  return reply.code(status).header('content-type', otlpContentTypes[encoding]).send(body)
}

export function otlpRoute(deps: OtlpRouteDependencies) {
  const { metrics } = deps
  const spans = {
    accepted: metrics.otlpSpans.labels({ outcome: 'accepted' }),
    rejected: metrics.otlpSpans.labels({ outcome: 'rejected' }),
    refused: metrics.otlpSpans.labels({ outcome: 'refused' }),
  }
  const publishDuration = metrics.publishDuration.labels({ topic: topics.otlpSpans })

  return async (app: FastifyInstance) => {
    app.removeAllContentTypeParsers()
    app.addContentTypeParser([otlpContentTypes.protobuf, otlpContentTypes.json], (request, payload, done) =>
      readOtlpBody(payload, deps.bodyLimitBytes, request.headers, done),
    )
    app.setErrorHandler((error, request, reply) => {
      const httpError = otlpHttpError(error)
      if (httpError.statusCode >= 500 && httpError.statusCode !== 503)
        deps.logger.error({ err: error }, 'unexpected error')
      if (httpError.retryAfterSeconds !== undefined)
        reply.header('retry-after', String(httpError.retryAfterSeconds))
      const encoding = encodingOf(request)
      return send(
        reply,
        encoding,
        httpError.statusCode,
        statusBody(encoding, httpError.statusCode, httpError.message),
      )
    })

    app.post(otlpTracesRoute, { onRequest: deps.authenticate }, async (request, reply) => {
      const receivedAt = Date.now()
      const encoding = encodingOf(request)
      const body = (request.body as Buffer | undefined) ?? Buffer.alloc(0)
      request.body = undefined
      const decoded = encoding === 'json' ? decodeOtlpJson(parseJsonBody(body)) : decodeOtlpProtobuf(body)
      const grouped = groupOtlpSpans(decoded, request.source!, receivedAt)
      spans.rejected.inc(grouped.rejectedSpans)
      const count = grouped.messages.reduce((sum, message) => sum + message.spans.length, 0)
      const codec = deps.codec()
      if (!codec) {
        spans.refused.inc(count)
        throw unavailable(
          'the span schema is not registered with the schema registry yet (see /readyz); retry later',
        )
      }
      // PII goes before anything is encoded, stored or logged.
      const pii = deps.piiRedaction?.(request.source!)
      const messages = grouped.messages.map(
        (message): OutgoingMessage => ({
          key: message.trace_id,
          value: codec.encode(pii ? pii.redactSpans(message) : message),
          ...(pii ? { headers: { [piiPolicyHeader]: pii.header } } : {}),
        }),
      )
      const started = process.hrtime.bigint()
      try {
        await Promise.all(messages.map((message) => deps.publish(topics.otlpSpans, message)))
      } catch (error) {
        spans.refused.inc(count)
        throw publishFailure(error, deps.warnOncePerInterval)
      }
      if (messages.length > 0) publishDuration.observe(Number(process.hrtime.bigint() - started) / 1e9)
      spans.accepted.inc(count)
      return send(reply, encoding, 200, exportResponse(encoding, grouped.rejectedSpans, grouped.errorMessage))
    })
  }
}
