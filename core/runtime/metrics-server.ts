import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Registry } from './metrics.ts'

// The operations endpoint of the worker and the assembler: GET /metrics (Prometheus), GET /healthz
// (liveness: 200 from the first second, while starting and while it makes progress; 503 once it
// stopped or stalled) and GET /readyz (readiness: 200 only while it consumes and retries nothing).
// Bodies say why (the service's probes decide: worker-probes.ts, the assembler's).

/** A probe's answer: healthy or not, and details for the body. */
export interface ProbeAnswer {
  healthy: boolean
  [detail: string]: unknown
}

export interface Probes {
  live: () => ProbeAnswer
  ready: () => ProbeAnswer
}

export interface MetricsServer {
  url: string
  close(): Promise<void>
}

export async function startMetricsServer(
  registry: Registry,
  probes: Probes,
  port: number,
  host = '0.0.0.0',
): Promise<MetricsServer> {
  const server: Server = createServer(async (request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    if (request.method !== 'GET') {
      response.writeHead(405).end()
    } else if (path === '/metrics') {
      const body = await registry.metrics()
      response.writeHead(200, { 'content-type': registry.contentType }).end(body)
    } else if (path === '/healthz' || path === '/readyz') {
      const state = path === '/healthz' ? probes.live() : probes.ready()
      response
        .writeHead(state.healthy ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify(state))
    } else {
      response.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  const address = server.address() as AddressInfo
  const shownHost = host === '0.0.0.0' ? '127.0.0.1' : host
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections() // a scraper's keep-alive connection must not hold the exit
      }),
  }
}
