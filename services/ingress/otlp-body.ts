import type { Readable } from 'node:stream'
import { gunzipSync } from 'node:zlib'
import { errorCodes } from 'fastify'
import { badRequest, HttpError } from './ingress-errors.ts'
import { readBodyBytes } from './request-body-bytes.ts'

// The body of an OTLP/HTTP request: the bytes as sent (at most the body limit, read as the
// webhook's are), then, for Content-Encoding: gzip, inflated to at most the same limit: a
// small body that inflates beyond it (a gzip bomb) is refused with 413 as soon as the limit is
// passed, never inflated whole. The JS exporter sends its body chunked, without Content-Length.
export function readOtlpBody(
  payload: Readable,
  limitBytes: number,
  headers: { 'content-length'?: string | undefined; 'content-encoding'?: string | undefined },
  done: (error: Error | null, body?: Buffer) => void,
): void {
  const encoding = (headers['content-encoding'] ?? 'identity').trim().toLowerCase()
  if (encoding !== 'gzip' && encoding !== 'identity') {
    done(new HttpError(415, 'unsupported_media_type', 'content encoding must be gzip or identity'))
    return
  }
  readBodyBytes(payload, limitBytes, headers['content-length'], (error, body) => {
    if (error || body === undefined || encoding === 'identity') {
      done(error, body)
      return
    }
    // maxOutputLength stops inflating once the limit is passed. On this thread: the thread pool's
    // hop cost more CPU per request than it saved (269-383 against 436-453 µs per request of the
    // benchmark's load, main thread alike), and inflating at most the limit costs no more than
    // parsing a JSON body of that size, which the webhook does here too.
    let inflated: Buffer
    try {
      inflated = gunzipSync(body, { maxOutputLength: limitBytes })
    } catch (inflateError) {
      if ((inflateError as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE())
      else done(badRequest('the body is not valid gzip', [{ path: '', problem: 'invalid gzip' }]))
      return
    }
    done(null, inflated)
  })
}
