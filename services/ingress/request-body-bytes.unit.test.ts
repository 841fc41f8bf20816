import { PassThrough, Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { readBodyBytes } from './request-body-bytes.ts'

// The ingress's body reader: one owned chunk is the body as is (no copy), anything else is joined
// into a Buffer of its own, and Fastify's limits and errors hold.
function read(payload: Readable, limit: number, contentLength?: string) {
  return new Promise<{ error: (Error & { code?: string; statusCode?: number }) | null; body?: Buffer }>(
    (resolve) => readBodyBytes(payload, limit, contentLength, (error, body) => resolve({ error, body })),
  )
}
const owned = (text: string) => Buffer.from(new TextEncoder().encode(text).buffer)

describe('readBodyBytes', () => {
  it('keeps a single chunk that owns its memory as the body, without a copy', async () => {
    const chunk = owned('{"a":1}')
    const { error, body } = await read(Readable.from([chunk], { objectMode: false }), 100, '7')
    expect(error).toBeNull()
    expect(body).toBe(chunk)
  })

  it('copies a single chunk that is a view into a larger buffer', async () => {
    const shared = Buffer.from('xx{"a":1}yy')
    const view = shared.subarray(2, 9)
    const { body } = await read(Readable.from([view], { objectMode: false }), 100, '7')
    expect(body).not.toBe(view)
    shared.fill(0)
    expect(body!.toString()).toBe('{"a":1}')
  })

  it('joins several chunks (strings too) into one Buffer', async () => {
    const { error, body } = await read(Readable.from([owned('{"a"'), ':', owned('1}')]), 100, undefined)
    expect(error).toBeNull()
    expect(body!.toString()).toBe('{"a":1}')
  })

  it('refuses a declared length over the limit before reading', async () => {
    const payload = new PassThrough()
    const { error } = await read(payload, 5, '6')
    expect(error?.code).toBe('FST_ERR_CTP_BODY_TOO_LARGE')
    expect(payload.listenerCount('data')).toBe(0)
  })

  it('stops reading once more than the limit arrived, whatever the header said', async () => {
    const payload = new PassThrough()
    const result = read(payload, 5, undefined)
    payload.write(owned('abc'))
    payload.write(owned('def'))
    const { error } = await result
    expect(error?.code).toBe('FST_ERR_CTP_BODY_TOO_LARGE')
    expect(payload.listenerCount('data')).toBe(0)
  })

  it('refuses a body whose size is not its Content-Length', async () => {
    const { error } = await read(Readable.from([owned('abc')], { objectMode: false }), 100, '4')
    expect(error?.code).toBe('FST_ERR_CTP_INVALID_CONTENT_LENGTH')
    expect(error?.statusCode).toBe(400)
  })

  it('answers a broken upload as a fault of the client (400)', async () => {
    const payload = new PassThrough()
    const result = read(payload, 100, '10')
    payload.write(owned('abc'))
    payload.destroy(new Error('aborted'))
    const { error } = await result
    expect(error?.message).toBe('aborted')
    expect(error?.statusCode).toBe(400)
  })
})
