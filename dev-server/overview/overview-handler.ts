import { readFile } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { runReadOnlyQuery } from '../../core/clickhouse/clickhouse-read-only.ts'
import {
  type AlertmanagerApiAlert,
  type AlertsView,
  alertingNotRunning,
  firingAlertsView,
} from './firing-alerts.ts'
import { overviewQueries, overviewSql, overviewWindow } from './overview-queries.ts'
import { type OverviewRoute, overviewAssets } from './overview-routes.ts'
import { type CompactResult, toChartSeries } from './overview-series.ts'

// Answers the overview page's requests (overview-routes.ts decided which): the page, its script
// and styles, uPlot from node_modules (no CDN: the page works offline), and the named queries'
// results as JSON, each in a read-only session of its own, as the SQL endpoint runs SQL; and what
// the local Alertmanager has firing, asked from here (the page never talks to Alertmanager).
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

/** Alertmanager's alerts; a missing or silent Alertmanager is "alerting not running", not an error. */
async function readAlerts(alertmanagerUrl: string | undefined): Promise<AlertsView> {
  if (!alertmanagerUrl) return alertingNotRunning('no Alertmanager configured: ALERTMANAGER_URL')
  const url = new URL('/api/v2/alerts', alertmanagerUrl)
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(3_000) })
    if (!answer.ok) return alertingNotRunning(`Alertmanager at ${url.origin} answered ${answer.status}`)
    return firingAlertsView((await answer.json()) as AlertmanagerApiAlert[])
  } catch {
    return alertingNotRunning(`no Alertmanager answers at ${url.origin}`)
  }
}

export async function answerOverview(
  route: OverviewRoute,
  response: ServerResponse,
  openSession: () => ClickHouseClient,
  alertmanagerUrl?: string,
): Promise<void> {
  switch (route.kind) {
    case 'alerts':
      send(
        response,
        200,
        'application/json; charset=utf-8',
        JSON.stringify(await readAlerts(alertmanagerUrl)),
      )
      return
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
