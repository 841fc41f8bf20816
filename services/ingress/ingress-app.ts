import Fastify, { type FastifyRequest, LogController } from 'fastify'
import type { EventCodec } from '../../core/event/event-codec.ts'
import { transcodeConversation } from '../../core/event/json-avro-transcoder.ts'
import { topics } from '../../core/kafka/topics.ts'
import type { OtlpSpansCodec } from '../../core/otlp/otlp-spans-codec.ts'
import { type PiiRedaction, piiPolicyHeader } from '../../core/privacy/pii/pii-settings.ts'
import { logThrottle } from '../../core/runtime/log-throttle.ts'
import { type Logger, withoutQuery } from '../../core/runtime/logger.ts'
import type { Registry } from '../../core/runtime/metrics.ts'
import { type WebhookSecret, webhookSecretMatcher } from '../../core/secrets/webhook-secrets.ts'
import type { OutgoingMessage } from './batching-producer.ts'
import { type Classified, classifyWebhook } from './classify-webhook.ts'
import { badRequest, HttpError, toHttpError, unauthorized, unavailable } from './ingress-errors.ts'
import type { IngressMetrics } from './ingress-metrics.ts'
import { parseJsonBody } from './json-body.ts'
import { otlpRoute, otlpTracesRoute } from './otlp-route.ts'
import { type KindWarning, publishFailure } from './publish-failure.ts'
import { readBodyBytes } from './request-body-bytes.ts'
import { toKafkaMessage } from './webhook-message.ts'

// The HTTP face of the ingress. Answers 202 only once Kafka has acknowledged the event; every
// other answer is an HttpError in one JSON shape. No I/O of its own: Kafka, the registry and
// readiness come in as functions.
export const webhookRoute = '/webhooks/conversation-complete'
/** At most one warning per kind of failure (route and status, publish error) in this long. */
export const troubleLogIntervalMs = 10_000
const jsonContentTypes = ['application/json', 'application/webhook+json']

export interface IngressDependencies {
  secrets: readonly WebhookSecret[]
  bodyLimitBytes: number
  /** Slow clients: the whole request within requestTimeoutMs, no silence longer than connectionTimeoutMs. */
  requestTimeoutMs: number
  connectionTimeoutMs: number
  logger: Logger
  metrics: IngressMetrics
  metricsRegistry: Registry
  /** The codec once the schema is registered; undefined while the registry cannot be reached. */
  codec: () => EventCodec | undefined
  /** The OTLP span codec once its schema is registered (POST /v1/traces). */
  otlpCodec: () => OtlpSpansCodec | undefined
  publish: (topic: string, message: OutgoingMessage) => Promise<void>
  readiness: () => Promise<{ ready: boolean; checks: Record<string, string> }>
  /** What a source's PII policy removes; undefined (or absent) when it keeps everything. */
  piiRedaction?: (source: string) => PiiRedaction | undefined
}

declare module 'fastify' {
  interface FastifyRequest {
    source?: string
  }
}

function presentedToken(request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown> | undefined
  if (typeof query?.token === 'string') return query.token
  const header = request.headers.authorization
  if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length).trim()
  return undefined
}

/** A redacted body as bytes; nesting too deep to serialise again is refused, not stored unredacted. */
function redactedBytes(body: unknown): Buffer {
  try {
    return Buffer.from(JSON.stringify(body))
  } catch {
    throw badRequest('body is nested too deeply to redact its PII', [{ path: '', problem: 'too deep' }])
  }
}

export function buildIngressApp(deps: IngressDependencies) {
  const { logger, metrics } = deps
  const app = Fastify({
    loggerInstance: logger,
    // We log requests ourselves, without the query string that carries the token.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes,
    // A token holder trickling a body must not hold a connection (and its buffer) for ever.
    requestTimeout: deps.requestTimeoutMs,
    connectionTimeout: deps.connectionTimeoutMs,
    // Node checks request deadlines every connectionsCheckingInterval (30 s by default).
    http: {
      headersTimeout: Math.min(60_000, deps.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(1_000, deps.requestTimeoutMs),
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  })

  // Closing: requests in flight finish, and their keep-alive connections close with the answer
  // (else close() would wait for the 72 s keep-alive timeout of every connection busy at SIGTERM).
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close')
  })

  app.removeAllContentTypeParsers()
  // The body's bytes without Fastify's extra copy of them (request-body-bytes.ts).
  app.addContentTypeParser(jsonContentTypes, (request, payload, done) =>
    readBodyBytes(payload, deps.bodyLimitBytes, request.headers['content-length'], done),
  )

  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.url === webhookRoute) metrics.inFlight.inc()
  })
  // While Kafka is away every request fails alike: one warning per kind per interval, with how
  // many were held back, instead of one per request (the metrics count each).
  const throttle = logThrottle(troubleLogIntervalMs)
  const warnOncePerInterval: KindWarning = (kind, fields, message) => {
    const heldBack = throttle(kind, Date.now())
    if (heldBack !== undefined) logger.warn(heldBack > 0 ? { ...fields, heldBack } : fields, message)
  }
  // The counter of the one answer nearly every request gets, bound once: prom-client would
  // otherwise hash its labels on every request.
  const accepted = metrics.httpRequests.labels({ route: webhookRoute, method: 'POST', status: 202 })
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched'
    const status = reply.statusCode
    if (route === webhookRoute) {
      metrics.inFlight.dec()
      if (status === 202 && request.method === 'POST') accepted.inc()
      else metrics.httpRequests.inc({ route, method: request.method, status })
    } else metrics.httpRequests.inc({ route, method: request.method, status })
    // The line is built only when it is written (debug is off in production).
    if (status < 500 && !logger.isLevelEnabled('debug')) return
    const line = { method: request.method, url: withoutQuery(request.url), status, ms: reply.elapsedTime }
    // /readyz answering 503 is its answer while Kafka or the registry is not there yet (an
    // orchestrator, or `./run dev` waiting to print its URL, asks it in a loop), not a failure.
    if (status >= 500 && route !== '/readyz')
      warnOncePerInterval(`${route} ${status}`, line, 'request failed')
    else logger.debug(line, 'request')
  })

  app.setErrorHandler((error, request, reply) => {
    const httpError = toHttpError(error)
    if (request.routeOptions.url === webhookRoute) {
      const outcome = httpError.statusCode === 503 ? 'refused' : 'rejected'
      metrics.events.inc({ outcome, reason: httpError.code })
    }
    if (httpError.statusCode >= 500 && httpError.statusCode !== 503)
      logger.error({ err: error }, 'unexpected error')
    if (httpError.retryAfterSeconds !== undefined)
      reply.header('retry-after', String(httpError.retryAfterSeconds))
    return reply.code(httpError.statusCode).send(httpError.toBody())
  })
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).send({
      error: 'not_found',
      message: `POST ${webhookRoute} is the webhook route, POST ${otlpTracesRoute} the OTLP/HTTP trace receiver`,
    }),
  )

  /**
   * The Kafka message of a webhook and what its answer needs. The parsed body, its record and
   * (for a conversation) the raw bytes are not referenced past this: they die young instead of
   * being promoted to the old generation while Kafka answers (less GC, less peak memory).
   */
  function toMessage(request: FastifyRequest) {
    const receivedAt = Date.now()
    const rawBody = request.body as Buffer | undefined
    if (!rawBody) throw new HttpError(415, 'unsupported_media_type', 'a JSON body is required')
    const ingest = { source: request.source!, receivedAt }
    // PII goes before anything is validated, stored or logged; a source that keeps everything skips this.
    const pii = deps.piiRedaction?.(request.source!)
    // A conversation of such a source is transcoded from its bytes (no JSON.parse, no objects);
    // anything the transcoder is not sure of takes the parse-and-walk path, which alone refuses.
    const fast = pii ? undefined : transcodeConversation(rawBody, ingest)
    let body: unknown
    let classified: Classified
    if (fast) classified = { kind: 'conversation', ...fast }
    else {
      const parsed = parseJsonBody(rawBody)
      body = pii ? pii.redact(parsed) : parsed
      classified = classifyWebhook(body, ingest)
    }
    const codec = deps.codec()
    if (!codec)
      throw unavailable(
        'the event schema is not registered with the schema registry yet (see /readyz); retry later',
      )
    // Raw bytes (quarantine, other kinds) hold what the policy removed: they are stored re-serialised.
    const storedBody = pii && classified.kind !== 'conversation' ? redactedBytes(body) : rawBody
    const { topic, message } = toKafkaMessage(classified, storedBody, request.source!, receivedAt, codec)
    if (pii) message.headers = { ...message.headers, [piiPolicyHeader]: pii.header }
    if (classified.kind === 'conversation') {
      request.body = undefined // the Avro record carries it now
      return { topic, message, classified: { kind: classified.kind, sessionId: classified.sessionId } }
    }
    return { topic, message, classified }
  }

  const matchSecret = webhookSecretMatcher(deps.secrets)
  // Before the body is read: a stranger's upload is refused without buffering it.
  const authenticate = async (request: FastifyRequest) => {
    const source = matchSecret(presentedToken(request))
    if (source === null) throw unauthorized()
    request.source = source
  }
  const acceptedPublishDuration = metrics.publishDuration.labels({ topic: topics.conversationComplete })
  const acceptedEvents = metrics.events.labels({ outcome: 'accepted', reason: 'none' })
  app.post(webhookRoute, { onRequest: authenticate }, async (request, reply) => {
    const { topic, message, classified } = toMessage(request)
    const started = process.hrtime.bigint()
    try {
      await deps.publish(topic, message)
    } catch (error) {
      throw publishFailure(error, warnOncePerInterval)
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    if (classified.kind === 'conversation') {
      acceptedPublishDuration.observe(seconds)
      acceptedEvents.inc()
    } else {
      metrics.publishDuration.observe({ topic }, seconds)
      const outcome = classified.kind === 'quarantine' ? 'quarantined' : 'other'
      metrics.events.inc({ outcome, reason: classified.kind === 'other' ? 'other_event_kind' : 'none' })
    }
    if (classified.kind === 'quarantine')
      logger.warn(
        { sessionId: classified.sessionId, problems: classified.problems.slice(0, 5) },
        'quarantined',
      )
    return reply.code(202).send(
      classified.kind === 'other'
        ? { status: 'accepted', event: classified.eventName }
        : {
            status: classified.kind === 'quarantine' ? 'quarantined' : 'accepted',
            session_id: classified.sessionId,
          },
    )
  })

  // Its own content types, body reading and answer shapes: an encapsulated context of its own.
  app.register(
    otlpRoute({
      bodyLimitBytes: deps.bodyLimitBytes,
      logger,
      metrics,
      authenticate,
      codec: deps.otlpCodec,
      publish: deps.publish,
      ...(deps.piiRedaction ? { piiRedaction: deps.piiRedaction } : {}),
      warnOncePerInterval,
    }),
  )

  app.get('/healthz', async () => ({ status: 'ok' }))
  app.get('/readyz', async (_request, reply) => {
    const { ready, checks } = await deps.readiness()
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks })
  })
  app.get('/metrics', async (_request, reply) =>
    reply.header('content-type', deps.metricsRegistry.contentType).send(await deps.metricsRegistry.metrics()),
  )
  return app
}
