import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestIngress, type TestIngress, testSecrets } from '../support/ingress-test-server.ts'

// A token holder that sends a body one byte at a time (never silent long enough for an idle
// timeout), or stops in the middle of its headers, must not keep the connection for ever: the
// ingress closes it once INGRESS_REQUEST_TIMEOUT_MS has passed.
describe('slow clients', () => {
  let ingress: TestIngress
  const sockets: Socket[] = []

  beforeAll(async () => {
    ingress = await startTestIngress({
      INGRESS_REQUEST_TIMEOUT_MS: '2000',
      INGRESS_CONNECTION_TIMEOUT_MS: '1500',
    })
  })
  afterAll(async () => {
    for (const socket of sockets) socket.destroy()
    await ingress?.close()
  })

  /** A raw connection to the ingress; resolves `closed` with what the server sent when it closes. */
  async function open() {
    const { port } = new URL(ingress.url)
    const socket = connect(Number(port), '127.0.0.1')
    sockets.push(socket)
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
    let received = ''
    socket.on('data', (chunk) => (received += chunk.toString()))
    socket.on('error', () => {})
    const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)))
    return { socket, closed }
  }

  /** Whether the promise settles within the deadline (a deadline for the test, not a timing claim). */
  const settlesWithin = <T>(promise: Promise<T>, ms: number) =>
    Promise.race([
      promise.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
    ])

  it('closes a connection whose body trickles in', async () => {
    const { socket, closed } = await open()
    socket.write(
      [
        'POST /webhooks/conversation-complete HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${testSecrets.prod}`,
        'Content-Type: application/json',
        'Content-Length: 100000',
        '',
        '{',
      ].join('\r\n'),
    )
    // One byte every 200 ms: never idle, never done.
    const trickle = setInterval(() => socket.writable && socket.write(' '), 200)
    try {
      expect(await settlesWithin(closed, 30_000)).toBe(true)
    } finally {
      clearInterval(trickle)
    }
    expect(await closed).toMatch(/^HTTP\/1\.1 408/)
  })

  it('closes a connection that stops in the middle of its headers', async () => {
    const { socket, closed } = await open()
    socket.write('POST /webhooks/conversation-complete HTTP/1.1\r\nHost: 127.0.0.1\r\n')
    const trickle = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 200)
    try {
      expect(await settlesWithin(closed, 30_000)).toBe(true)
    } finally {
      clearInterval(trickle)
    }
  })

  it('still answers a client that sends its request in time', async () => {
    const response = await fetch(`${ingress.url}/healthz`)
    expect(response.status).toBe(200)
  })
})
