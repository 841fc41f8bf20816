import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ClickHouseClient } from '../core/clickhouse.ts'
import { runReadOnlyQuery } from '../core/clickhouse-read-only.ts'

// Only one process can own an embedded ClickHouse data directory, so `npm run dev` (which owns
// it) answers SQL for `voice-analytics query` on localhost: a small, read-only subset of the
// ClickHouse HTTP interface (POST the SQL; ?default_format=...; ?final=0 to read unmerged rows).
export interface SqlEndpoint {
  url: string
  close(): Promise<void>
}

export async function startSqlEndpoint(
  client: ClickHouseClient,
  port: number,
  host = '127.0.0.1',
): Promise<SqlEndpoint> {
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost')
    let sql = url.searchParams.get('query') ?? ''
    if (request.method === 'POST') {
      let body = ''
      for await (const chunk of request) body += chunk
      sql = sql ? `${sql}\n${body}` : body
    } else if (request.method !== 'GET') {
      response.writeHead(405).end()
      return
    }
    if (url.pathname === '/ping') {
      response.writeHead(200).end('Ok.\n')
      return
    }
    if (sql.trim() === '') {
      response
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('no SQL: POST it as the body or pass ?query=\n')
      return
    }
    try {
      const text = await runReadOnlyQuery(client, {
        sql,
        format: url.searchParams.get('default_format') ?? 'TabSeparated',
        final: url.searchParams.get('final') !== '0',
      })
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(text)
    } catch (error) {
      response
        .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`${(error as Error).message}\n`)
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  const address = server.address() as AddressInfo
  return {
    url: `http://${host}:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
