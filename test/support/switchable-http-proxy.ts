import { createServer, request } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

// A fault injector in front of a real HTTP server (the schema registry): it passes requests
// through, answers every request 404 like a gateway or a wrong path would, or drops connections
// like a server that is down. Switched by the test while the client keeps its URL.
export type ProxyMode = 'pass' | 'not_found' | 'down'

export interface SwitchableHttpProxy {
  /** The target's URL with the proxy's origin (same path). */
  url: string
  mode: ProxyMode
  /** Requests answered in each mode so far. */
  seen: Record<ProxyMode, number>
  close(): Promise<void>
}

export async function startSwitchableHttpProxy(targetUrl: string): Promise<SwitchableHttpProxy> {
  const target = new URL(targetUrl)
  const sockets = new Set<Socket>()
  const proxy: Omit<SwitchableHttpProxy, 'url' | 'close'> = {
    mode: 'pass',
    seen: { pass: 0, not_found: 0, down: 0 },
  }
  const server = createServer((incoming, outgoing) => {
    const mode = proxy.mode
    proxy.seen[mode]++
    if (mode === 'down') {
      incoming.socket.destroy()
      return
    }
    if (mode === 'not_found') {
      outgoing.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>404 Not Found</body></html>')
      return
    }
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: target.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      },
    )
    forwarded.on('error', () => outgoing.destroy())
    incoming.pipe(forwarded)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  })
}
