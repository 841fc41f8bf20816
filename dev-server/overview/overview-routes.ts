import { type GuardRefusal, type GuardRequest, guardRefusal } from '../endpoints/sql-endpoint-guard.ts'
import { isOverviewQueryName, type OverviewQueryName } from './overview-queries.ts'

// Which requests to the dev SQL endpoint are the overview page's, and who may make them. The
// page is for a browser on this machine, which has no token: `GET /` (without ?query=, which
// stays SQL) and `GET /overview/...` are answered without one, but only under the endpoint's own
// Host and cross-site guards (sql-endpoint-guard.ts), so another site or a rebound DNS name
// still reads nothing. Data comes only from fixed, named queries. Pure: decisions only.
export const overviewAssets = {
  'overview.js': { file: 'overview-page.js', type: 'text/javascript; charset=utf-8' },
  'overview-alerts.js': { file: 'overview-alerts.js', type: 'text/javascript; charset=utf-8' },
  'overview.css': { file: 'overview.css', type: 'text/css; charset=utf-8' },
  'uplot.js': { file: 'uplot/dist/uPlot.iife.min.js', type: 'text/javascript; charset=utf-8' },
  'uplot.css': { file: 'uplot/dist/uPlot.min.css', type: 'text/css; charset=utf-8' },
} as const

export type OverviewAsset = keyof typeof overviewAssets

export type OverviewRoute =
  | { kind: 'page' }
  | { kind: 'asset'; asset: OverviewAsset }
  | { kind: 'data'; name: OverviewQueryName }
  /** What Alertmanager has firing, asked by the server (firing-alerts.ts), never by the browser. */
  | { kind: 'alerts' }
  | { kind: 'not-found' }
  | { kind: 'method-not-allowed' }

/** The overview's answer to a request, or undefined when the request is for SQL (token needed). */
export function overviewRoute(method: string | undefined, url: URL): OverviewRoute | undefined {
  const page = url.pathname === '/' && !url.searchParams.has('query')
  const underOverview = url.pathname === '/overview' || url.pathname.startsWith('/overview/')
  if (!page && !underOverview) return undefined
  // A POST to / is SQL for `voice-analytics query`; anything else but GET/HEAD is not the page's.
  if (method !== 'GET' && method !== 'HEAD') return page ? undefined : { kind: 'method-not-allowed' }
  if (page) return { kind: 'page' }
  const rest = url.pathname.slice('/overview/'.length)
  if (rest === 'alerts') return { kind: 'alerts' }
  if (Object.hasOwn(overviewAssets, rest)) return { kind: 'asset', asset: rest as OverviewAsset }
  const data = /^data\/([a-z0-9-]+)$/.exec(rest)
  if (data && isOverviewQueryName(data[1]!)) return { kind: 'data', name: data[1] }
  return { kind: 'not-found' }
}

/**
 * The endpoint's guards without the token: the wrong Host (421), then another site (403), with
 * the SQL guard's own checks and messages; its last check, the token, is the one left out.
 */
export function overviewRefusal(
  request: Omit<GuardRequest, 'authorization'>,
  port: number,
): GuardRefusal | undefined {
  const refusal = guardRefusal({ ...request, authorization: undefined }, port, 'no token for the overview')
  return refusal?.status === 401 ? undefined : refusal
}
