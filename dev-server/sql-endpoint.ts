import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ClickHouseClient } from '../core/clickhouse/clickhouse.ts'
import { ReadOnlyQueryRefused } from '../core/clickhouse/clickhouse-errors.ts'
import { runReadOnlyQuery } from '../core/clickhouse/clickhouse-read-only.ts'
import { answerPriceChanges } from './endpoints/price-endpoint.ts'
import { guardRefusal } from './endpoints/sql-endpoint-guard.ts'
import type { WriteAnswer } from './endpoints/write-route.ts'
import { answerOverview } from './overview/overview-handler.ts'
import { overviewRefusal, overviewRoute } from './overview/overview-routes.ts'

// Only one process can own an embedded ClickHouse data directory, so `npm run dev` (which owns
// it) answers SQL for `voice-analytics query` on localhost: a small, read-only subset of the
// ClickHouse HTTP interface (POST the SQL; ?default_format=...; ?final=0 to read unmerged rows).
// Every request must name the loopback host it is served on, come from no other site, and carry
// the token (sql-endpoint-guard.ts); every query is read-only and checked (clickhouse-read-only.ts),
// each in a session of its own (chDB keeps `readonly` for the session). `GET /` is the read-only
// overview page (overview/), for a browser on this machine without the token: it runs only fixed,
// named queries, still under the Host and cross-site guards. `POST /prices` and `POST /forget` are
// its writes, for `voice-analytics prices` (price-endpoint.ts) and `voice-analytics forget`
// (forget-endpoint.ts), behind the same guards and token as the SQL.
export interface SqlEndpoint {
  url: string
  close(): Promise<void>
}

/** The SQL of one request, at most this long: analysts' queries, not data. */
const maxSqlBytes = 1024 * 1024

const securityHeaders = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
}

function answer(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
) {
  response
    .writeHead(status, { ...securityHeaders, 'content-type': 'text/plain; charset=utf-8', ...headers })
    .end(text.endsWith('\n') ? text : `${text}\n`)
}

async function readSql(request: IncomingMessage): Promise<string | undefined> {
  let body = ''
  let bytes = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    bytes += chunk.length
    if (bytes > maxSqlBytes) return undefined
    body += chunk.toString('utf8')
  }
  return body
}

/**
 * @param openSession a new read-only-to-be session per query (for chDB: a new session on the
 *   data directory the caller owns; it is closed after the query)
 * @param token what `Authorization: Bearer` must carry (see local-secret.ts, 'sql-endpoint-token')
 * @param database where `POST /prices` writes (CLICKHOUSE_DATABASE)
 */
export async function startSqlEndpoint(
  openSession: () => ClickHouseClient,
  port: number,
  token: string,
  host = '127.0.0.1',
  /** the local Alertmanager whose alerts the overview page shows; unset: "alerting not running" */
  alertmanagerUrl?: string,
  database = 'voice_analytics',
  /** `POST /forget` (forget-endpoint.ts); unset: the route answers 404 */
  forget?: (body: string) => Promise<WriteAnswer>,
): Promise<SqlEndpoint> {
  let servedPort = port
  const server = createServer(async (request, response) => {
    const overview = overviewRoute(request.method, new URL(request.url ?? '/', 'http://localhost'))
    if (overview) {
      const refusal = overviewRefusal(
        {
          host: request.headers.host,
          origin: request.headers.origin,
          secFetchSite: request.headers['sec-fetch-site'] as string | undefined,
        },
        servedPort,
      )
      if (refusal) {
        response.setHeader('connection', 'close')
        answer(response, refusal.status, refusal.message)
        return
      }
      await answerOverview(overview, response, openSession, alertmanagerUrl).catch((error: Error) => {
        if (!response.headersSent) answer(response, 500, `the overview failed: ${error.message}`)
      })
      return
    }
    const refusal = guardRefusal(
      {
        host: request.headers.host,
        origin: request.headers.origin,
        secFetchSite: request.headers['sec-fetch-site'] as string | undefined,
        authorization: request.headers.authorization,
      },
      servedPort,
      token,
    )
    if (refusal) {
      // The body is left unread: the connection closes with the answer.
      response.setHeader('connection', 'close')
      answer(
        response,
        refusal.status,
        refusal.message,
        refusal.status === 401 ? { 'www-authenticate': 'Bearer' } : {},
      )
      return
    }
    const url = new URL(request.url ?? '/', 'http://localhost')
    if (request.method !== 'POST' && request.method !== 'GET') {
      answer(response, 405, 'POST the SQL', { allow: 'GET, POST' })
      return
    }
    if (url.pathname === '/ping') {
      answer(response, 200, 'Ok.')
      return
    }
    if (url.pathname === '/prices') {
      const body = request.method === 'POST' ? await readSql(request) : undefined
      if (body === undefined) {
        response.setHeader('connection', 'close')
        answer(response, request.method === 'POST' ? 413 : 405, 'POST the price changes, at most 1 MiB')
        return
      }
      const priced = await answerPriceChanges(body, openSession, database)
      answer(response, priced.status, priced.text)
      return
    }
    if (url.pathname === '/forget') {
      const body = request.method === 'POST' ? await readSql(request) : undefined
      if (body === undefined || !forget) {
        response.setHeader('connection', 'close')
        answer(
          response,
          !forget ? 404 : request.method === 'POST' ? 413 : 405,
          !forget ? 'this endpoint takes no erasures' : 'POST the erasure, at most 1 MiB',
        )
        return
      }
      const erased = await forget(body)
      answer(response, erased.status, erased.text)
      return
    }
    let sql = url.searchParams.get('query') ?? ''
    if (request.method === 'POST') {
      const body = await readSql(request)
      if (body === undefined) {
        response.setHeader('connection', 'close')
        answer(response, 413, `the SQL is longer than ${maxSqlBytes} bytes`)
        return
      }
      sql = sql ? `${sql}\n${body}` : body
    }
    if (sql.trim() === '') {
      answer(response, 400, 'no SQL: POST it as the body or pass ?query=')
      return
    }
    const session = openSession()
    try {
      const text = await runReadOnlyQuery(session, {
        sql,
        format: url.searchParams.get('default_format') ?? 'TabSeparated',
        final: url.searchParams.get('final') !== '0',
      })
      response.writeHead(200, { ...securityHeaders, 'content-type': 'text/plain; charset=utf-8' }).end(text)
    } catch (error) {
      answer(response, error instanceof ReadOnlyQueryRefused ? 400 : 500, (error as Error).message)
    } finally {
      await session.close()
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  servedPort = (server.address() as AddressInfo).port
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${servedPort}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
