import type { Problem } from '../../core/event/event-validation.ts'

// The ingress's errors: the batching producer's refusals of a message (batching-producer.ts;
// publish-failure.ts turns them into answers), and the answers themselves.

/** Waited in the queue longer than the publish timeout; taken out, never sent. */
export class PublishTimeoutError extends Error {
  override name = 'PublishTimeoutError'
}
/** The queue was full; never queued. */
export class QueueFullError extends Error {
  override name = 'QueueFullError'
}
/** Larger than the topic takes; never sent. */
export class MessageTooLargeError extends Error {
  override name = 'MessageTooLargeError'
}
/** Kafka refused a batch of several messages by size after all (its limit changed under us): retry. */
export class BatchRefusedBySizeError extends Error {
  override name = 'BatchRefusedBySizeError'
}

/** An error answer: one shape, `{ error, message, details? }`, for every status. */
export class HttpError extends Error {
  override name = 'HttpError'
  readonly statusCode: number
  readonly code: string
  readonly details: Problem[] | undefined
  readonly retryAfterSeconds: number | undefined

  constructor(
    statusCode: number,
    code: string,
    message: string,
    extra: { details?: Problem[]; retryAfterSeconds?: number } = {},
  ) {
    super(message)
    this.statusCode = statusCode
    this.code = code
    this.details = extra.details
    this.retryAfterSeconds = extra.retryAfterSeconds
  }

  toBody(): { error: string; message: string; details?: Problem[] } {
    return this.details
      ? { error: this.code, message: this.message, details: this.details }
      : { error: this.code, message: this.message }
  }
}

export const badRequest = (message: string, details: Problem[]) =>
  new HttpError(400, 'bad_request', message, { details })
export const unauthorized = () =>
  new HttpError(
    401,
    'unauthorized',
    'missing or wrong webhook token (?token=... or Authorization: Bearer ...)',
  )
export const unavailable = (message: string, retryAfterSeconds = 5) =>
  new HttpError(503, 'unavailable', message, { retryAfterSeconds })

// Fastify's own errors (body parsing, limits) mapped onto the same shape.
const fastifyErrors: Record<string, (message: string) => HttpError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new HttpError(
      415,
      'unsupported_media_type',
      'content type must be application/json or application/webhook+json',
    ),
  FST_ERR_CTP_INVALID_TYPE: () =>
    new HttpError(
      415,
      'unsupported_media_type',
      'content type must be application/json or application/webhook+json',
    ),
  FST_ERR_CTP_BODY_TOO_LARGE: () =>
    new HttpError(413, 'payload_too_large', 'request body is larger than the limit'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: (message) =>
    badRequest(message, [{ path: '', problem: 'invalid content length' }]),
  FST_ERR_CTP_EMPTY_JSON_BODY: () =>
    badRequest('request body is empty', [{ path: '', problem: 'empty body' }]),
}

/** Any error thrown while handling a request, as the HttpError to answer with (500 if unknown). */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error
  const code = (error as { code?: unknown })?.code
  if (typeof code === 'string' && fastifyErrors[code])
    return fastifyErrors[code](String((error as Error).message))
  const statusCode = (error as { statusCode?: unknown })?.statusCode
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500)
    return new HttpError(statusCode, 'bad_request', String((error as Error).message))
  return new HttpError(500, 'internal_error', 'internal error; see the ingress log')
}
