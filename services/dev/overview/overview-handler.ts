import { readFile } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { runReadOnlyQuery } from '../../core/clickhouse-read-only.ts'
import { overviewQueries, overviewSql, overviewWindow } from './overview-queries.ts'
import { type OverviewRoute, overviewAssets } from './overview-routes.ts'
import { type CompactResult, toChartSeries } from './overview-series.ts'

// Answers the overview page's requests (overview-routes.ts decided which): the page, its script
// and styles, uPlot from node_modules (no CDN: the page works offline), and the named queries'
// results as JSON, each in a read-only session of its own, as the SQL endpoint runs SQL.
const require = createRequire(import.meta.url)
const here = new URL('.', import.meta.url)

const headers = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  // Only this origin's own script and styles; never framed by another page.
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
}

function assetPath(file: string): string {
  return file.startsWith('uplot/') ? require.resolve(file) : new URL(file, here).pathname
}

function send(response: ServerResponse, status: number, type: string, body: string | Buffer) {
  response.writeHead(status, { ...headers, 'content-type': type }).end(body)
}

export async function answerOverview(
  route: OverviewRoute,
  response: ServerResponse,
  openSession: () => ClickHouseClient,
): Promise<void> {
  switch (route.kind) {
    case 'page':
      send(response, 200, 'text/html; charset=utf-8', await readFile(new URL('overview.html', here)))
      return
    case 'asset': {
      const asset = overviewAssets[route.asset]
      send(response, 200, asset.type, await readFile(assetPath(asset.file)))
      return
    }
    case 'not-found':
      send(response, 404, 'text/plain; charset=utf-8', 'no such overview page or query\n')
      return
    case 'method-not-allowed':
      response.setHeader('allow', 'GET')
      send(response, 405, 'text/plain; charset=utf-8', 'the overview is read with GET\n')
      return
    case 'data': {
      const query = overviewQueries[route.name]
      const session = openSession()
      try {
        const now = new Date()
        const text = await runReadOnlyQuery(session, {
          sql: overviewSql(route.name, now),
          format: 'JSONCompact',
          final: true,
        })
        const result = JSON.parse(text) as CompactResult
        const body =
          query.kind === 'chart'
            ? { ...query, rawSql: undefined, chart: toChartSeries(result, overviewWindow(now)) }
            : {
                ...query,
                rawSql: undefined,
                columns: result.meta.map((column) => column.name),
                rows: result.data,
              }
        send(response, 200, 'application/json; charset=utf-8', JSON.stringify(body))
      } catch (error) {
        send(
          response,
          500,
          'text/plain; charset=utf-8',
          `the ${route.name} query failed: ${(error as Error).message}\n`,
        )
      } finally {
        await session.close()
      }
      return
    }
  }
}
