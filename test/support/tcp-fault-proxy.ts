import { createServer, type Server, Socket } from 'node:net'

// A fault injector, not a mock: a TCP pass-through in front of a real server (e.g. the schema
// registry) that a test can switch off and on. While down, the server is gone from the client's
// point of view: new connections are refused (nothing listens) or reset as they open, and the
// connections already open are cut, so a client's keep-alive sockets cannot hide the outage.
// Or the server hangs: connections are accepted and never answered (a blackholed network, a
// process frozen in a pause), and those stay hung after `up()`, as such connections do. An HTTP
// server behind it can also seem to restart behind a gateway: every request is answered with one
// status (a 503, or the 404 a gateway gives while no backend route exists).
export type ProxyFault = 'refuse' | 'reset' | 'hang' | { httpStatus: number }

export interface TcpFaultProxy {
  /** The proxy's own port on 127.0.0.1 (stays the same across down/up). */
  port: number
  /** Connections accepted and passed through so far. */
  readonly passedConnections: number
  /** Connections met by a fault so far (answered with a status, reset, or hung; refused ones never arrive). */
  readonly faultedConnections: number
  down(fault: ProxyFault): Promise<void>
  up(): Promise<void>
  close(): Promise<void>
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : port)
    })
  })
}

/** Answers each request head read on the socket with `status` and closes the connection. */
function answerEveryRequest(client: Socket, status: number): void {
  let head = ''
  client.on('error', () => client.destroy())
  client.on('data', (chunk: Buffer) => {
    head += chunk.toString('latin1')
    if (!head.includes('\r\n\r\n')) return
    const body = `fault injected: ${status}`
    client.end(
      `HTTP/1.1 ${status} Fault\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\n` +
        `connection: close\r\n\r\n${body}`,
    )
  })
}

const closed = (server: Server) =>
  new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()))

export async function createTcpFaultProxy(target: { host: string; port: number }): Promise<TcpFaultProxy> {
  const open = new Set<Socket>()
  const hung = new Set<Socket>()
  let mode: 'pass' | ProxyFault = 'pass'
  let passedConnections = 0
  let faultedConnections = 0

  const server = createServer((client) => {
    if (mode !== 'pass') faultedConnections++
    if (typeof mode === 'object') {
      answerEveryRequest(client, mode.httpStatus)
      return
    }
    if (mode === 'hang') {
      hung.add(client)
      client.on('error', () => client.destroy())
      client.on('close', () => hung.delete(client))
      return
    }
    if (mode !== 'pass') {
      client.resetAndDestroy()
      return
    }
    passedConnections++
    const upstream = new Socket()
    for (const socket of [client, upstream]) {
      open.add(socket)
      socket.on('close', () => open.delete(socket))
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    upstream.connect(target.port, target.host, () => {
      client.pipe(upstream)
      upstream.pipe(client)
    })
    client.on('end', () => upstream.end())
    upstream.on('end', () => client.end())
  })
  const port = await listen(server, 0)

  const cutOpenConnections = () => {
    for (const socket of open) socket.resetAndDestroy()
    open.clear()
  }
  // A hung connection outlives `up()`, but not a next fault (and the listener cannot close
  // while one is open).
  const cutHungConnections = () => {
    for (const socket of hung) socket.resetAndDestroy()
    hung.clear()
  }

  return {
    port,
    get passedConnections() {
      return passedConnections
    },
    get faultedConnections() {
      return faultedConnections
    },
    async down(fault) {
      mode = fault
      cutOpenConnections()
      cutHungConnections()
      if (mode === 'refuse') await closed(server)
      else if (!server.listening) await listen(server, port)
    },
    async up() {
      mode = 'pass'
      if (!server.listening) await listen(server, port)
    },
    async close() {
      cutOpenConnections()
      cutHungConnections()
      await closed(server)
    },
  }
}
