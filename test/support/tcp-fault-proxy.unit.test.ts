import { createServer, type Server, Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTcpFaultProxy, type TcpFaultProxy } from './tcp-fault-proxy.ts'

// The fault injector does what the fault tests rely on: passes bytes through while up; while down
// refuses, resets or answers one HTTP status; cuts connections that were open; and comes back
// on the same port.
function connect(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = new Socket()
    socket.once('error', reject)
    socket.connect(port, '127.0.0.1', () => resolve(socket))
  })
}

/** Writes `text` and collects what comes back until the other side ends or breaks the connection. */
function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = ''
    const socket = new Socket()
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString()
      if (received.length >= text.length && !text.startsWith('GET')) socket.end()
    })
    socket.once('error', reject)
    socket.once('close', () => resolve(received))
    socket.connect(port, '127.0.0.1', () => socket.write(text))
  })
}

describe('tcp-fault-proxy', () => {
  let echo: Server
  let proxy: TcpFaultProxy

  beforeAll(async () => {
    // The proxy cuts its upstream connections when it goes down: the echo side sees resets.
    echo = createServer((socket) => socket.on('error', () => {}).pipe(socket))
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve))
    const address = echo.address()
    proxy = await createTcpFaultProxy({
      host: '127.0.0.1',
      port: typeof address === 'object' && address ? address.port : 0,
    })
  })
  afterAll(async () => {
    await proxy.close()
    await new Promise((resolve) => echo.close(resolve))
  })

  it('passes bytes both ways while up', async () => {
    expect(await exchange(proxy.port, 'hello through')).toBe('hello through')
    expect(proxy.passedConnections).toBe(1)
  })

  it('refuses connections while down with refuse, and cuts the open ones', async () => {
    const open = await connect(proxy.port)
    const closed = new Promise((resolve) => open.once('close', resolve))
    open.on('error', () => {})
    await proxy.down('refuse')
    await closed
    await expect(connect(proxy.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' })
  })

  it('resets connections as they open while down with reset', async () => {
    await proxy.down('reset')
    await expect(exchange(proxy.port, 'lost')).rejects.toMatchObject({ code: 'ECONNRESET' })
  })

  it('accepts and never answers while down with hang, and the hung connection stays hung after up', async () => {
    await proxy.down('hang')
    const hung = await connect(proxy.port)
    let received = ''
    hung.on('data', (chunk: Buffer) => {
      received += chunk.toString()
    })
    hung.write('anyone there?')
    await proxy.up()
    // A new connection is echoed; by then the hung one would have been too, were it passed on.
    expect(await exchange(proxy.port, 'after the hang')).toBe('after the hang')
    expect(received).toBe('')
    expect(hung.destroyed).toBe(false)
    hung.destroy()
  })

  it('cuts a hung connection at the next fault, so it can stop listening', async () => {
    await proxy.down('hang')
    const hung = await connect(proxy.port)
    hung.on('error', () => {})
    const closed = new Promise((resolve) => hung.once('close', resolve))
    await proxy.down('refuse')
    await closed
    await expect(connect(proxy.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' })
  })

  it('answers every request with the given HTTP status, counting it as faulted, not passed', async () => {
    await proxy.down({ httpStatus: 404 })
    const [faulted, passed] = [proxy.faultedConnections, proxy.passedConnections]
    const answer = await exchange(
      proxy.port,
      'GET /apis/ccompat/v7/schemas/ids/1 HTTP/1.1\r\nhost: x\r\n\r\n',
    )
    expect(answer).toMatch(/^HTTP\/1\.1 404 /)
    expect(proxy.faultedConnections).toBe(faulted + 1)
    expect(proxy.passedConnections).toBe(passed)
  })

  it('passes again on the same port once up', async () => {
    const passed = proxy.passedConnections
    await proxy.up()
    expect(await exchange(proxy.port, 'back again')).toBe('back again')
    expect(proxy.passedConnections).toBe(passed + 1)
  })
})
