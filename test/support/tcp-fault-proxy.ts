import { createServer, type Server, Socket } from 'node:net'

// A fault injector, not a mock: a TCP pass-through in front of a real server (e.g. the schema
// registry) that a test can switch off and on. While down, the server is gone from the client's
// point of view: new connections are refused (nothing listens) or reset as they open, and the
// connections already open are cut, so a client's keep-alive sockets cannot hide the outage.
export type ProxyFault = 'refuse' | 'reset'

export interface TcpFaultProxy {
  /** The proxy's own port on 127.0.0.1 (stays the same across down/up). */
  port: number
  /** Connections accepted and passed through so far. */
  readonly passedConnections: number
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

const closed = (server: Server) =>
  new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()))

export async function createTcpFaultProxy(target: { host: string; port: number }): Promise<TcpFaultProxy> {
  const open = new Set<Socket>()
  let mode: 'pass' | ProxyFault = 'pass'
  let passedConnections = 0

  const server = createServer((client) => {
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

  return {
    port,
    get passedConnections() {
      return passedConnections
    },
    async down(fault) {
      mode = fault
      cutOpenConnections()
      if (fault === 'refuse') await closed(server)
      else if (!server.listening) await listen(server, port)
    },
    async up() {
      mode = 'pass'
      if (!server.listening) await listen(server, port)
    },
    async close() {
      cutOpenConnections()
      await closed(server)
    },
  }
}
