import type { Readable } from 'node:stream'
import { errorCodes } from 'fastify'

// The request body as one Buffer, read for the ingress's content-type parser. Fastify's own
// reader (parseAs: 'buffer') always concatenates the chunks into a new Buffer, so every 22 KB
// body was copied once more than needed: Node's HTTP parser already hands each body chunk over
// as a Buffer of its own (a copy out of the socket's read buffer), and a webhook body nearly
// always arrives as one chunk. Here that chunk is the body; only a body of several chunks is
// joined. Limits and errors are Fastify's (same codes, so the same 413/400 answers).

/** A chunk that owns its whole memory (not a view into a larger, shared buffer) can be kept as is. */
const ownsItsMemory = (chunk: Buffer) => chunk.byteOffset === 0 && chunk.buffer.byteLength === chunk.length

export function readBodyBytes(
  payload: Readable,
  limitBytes: number,
  contentLengthHeader: string | undefined,
  done: (error: Error | null, body?: Buffer) => void,
): void {
  const contentLength = Number(contentLengthHeader)
  if (contentLength > limitBytes) {
    done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE())
    return
  }
  const chunks: Buffer[] = []
  let received = 0
  const stop = () => {
    payload.removeListener('data', onData)
    payload.removeListener('end', onEnd)
    payload.removeListener('error', onEnd)
  }
  function onData(chunk: Buffer | string) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    received += bytes.length
    if (received > limitBytes) {
      stop()
      done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE())
      return
    }
    chunks.push(bytes)
  }
  function onEnd(error?: Error & { statusCode?: number }) {
    stop()
    if (error) {
      // A broken upload (client gone, aborted) is the client's fault, as Fastify treats it.
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400
      done(error)
      return
    }
    if (!Number.isNaN(contentLength) && received !== contentLength) {
      done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH())
      return
    }
    const only = chunks.length === 1 ? chunks[0]! : undefined
    done(null, only && ownsItsMemory(only) ? only : Buffer.concat(chunks, received))
  }
  payload.on('data', onData)
  payload.on('end', onEnd)
  payload.on('error', onEnd)
  payload.resume()
}
