import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import puppeteer, { type Browser } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { overviewQueries } from '../../dev-server/overview/overview-queries.ts'
import { type SqlEndpoint, startSqlEndpoint } from '../../dev-server/sql-endpoint.ts'
import { fillWithGeneratedConversations } from '../observability/generated-clickhouse.ts'
import { findChromium } from '../support/chromium.ts'
import { embeddedClickHouse } from '../support/embedded-clickhouse.ts'

// The overview page of `./run dev` as a newcomer meets it: the dev SQL endpoint over a real
// embedded ClickHouse (chDB) filled with generated conversations by the worker's own transform,
// opened in a real headless browser (Debian's chromium, driven by puppeteer-core). It must load
// without console errors, draw every chart with data, and keep its screenshot as a run artifact in
// test-results/overview.png (docs/overview.png is one such screenshot, committed; copy a new one there by hand).
// Then the same endpoint over plain HTTP: no token needed for the page, but the Host and
// cross-site guards still hold, and the browser can name queries, never send SQL.
const screenshot = fileURLToPath(new URL('../../test-results/overview.png', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'va-overview-'))
const dataDir = join(dir, 'clickhouse')
const token = 'overview-test-token-not-sent-by-the-page'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function send(port: number, path: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, method, headers }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        body += chunk
      })
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }))
    })
    outgoing.on('error', reject)
    outgoing.end()
  })
}

describe('the overview page (issue #14)', () => {
  let owner: ClickHouseClient
  let endpoint: SqlEndpoint
  let port: number
  let browser: Browser | undefined

  beforeAll(async () => {
    // The data directory's owner, as the worker in `./run dev`; the endpoint opens sessions on it.
    owner = embeddedClickHouse(dataDir)
    await fillWithGeneratedConversations(owner, {
      count: 400,
      hours: 12,
      redelivered: 20,
      seed: 14,
      otlpEvery: 7,
    })
    endpoint = await startSqlEndpoint(() => embeddedClickHouse(dataDir), 0, token)
    port = Number(new URL(endpoint.url).port)
  }, 240_000)
  afterAll(async () => {
    await browser?.close()
    await endpoint?.close()
    await owner?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('loads in headless chromium with no console errors, every chart has data, and its screenshot is kept', async () => {
    browser = await puppeteer.launch({
      executablePath: findChromium(),
      headless: true,
      userDataDir: join(dir, 'chromium'),
      // Root in a container has no user namespaces for chromium's sandbox.
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    })
    const page = await browser.newPage()
    await page.setViewport({ width: 1400, height: 900 })
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warn') problems.push(`console: ${message.text()}`)
    })
    page.on('pageerror', (error) => problems.push(`page error: ${(error as Error).message}`))
    page.on('requestfailed', (failed) => problems.push(`request failed: ${failed.url()}`))
    const requested: string[] = []
    page.on('response', (response) => {
      requested.push(new URL(response.url()).pathname)
      if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`)
    })

    const opened = await page.goto(`${endpoint.url}/`, { waitUntil: 'load' })
    expect(opened?.status()).toBe(200)
    await page.waitForSelector('body[data-ready]', { timeout: 120_000 })
    expect(await page.$eval('body', (body) => body.getAttribute('data-ready'))).toBe('ok')
    expect(problems).toEqual([])

    // Each chart drew points, in a uPlot canvas; each stat and table shows rows from the queries.
    const charts = await page.$$eval('.chart', (elements) =>
      elements.map((element) => ({
        query: element.getAttribute('data-query'),
        points: Number(element.getAttribute('data-points') ?? 0),
        canvases: element.querySelectorAll('canvas').length,
        xRange: (element.getAttribute('data-x-range') ?? '').split('-').map(Number),
      })),
    )
    const chartNames = Object.entries(overviewQueries).flatMap(([name, query]) =>
      query.kind === 'chart' ? [name] : [],
    )
    expect(charts.map((chart) => chart.query).sort()).toEqual(chartNames.sort())
    for (const chart of charts) {
      expect(chart.points, chart.query).toBeGreaterThan(0)
      expect(chart.canvases, chart.query).toBe(1)
      // The x axis is the last 24 hours, whatever the data covers (12 hours here): #21.
      const [from, to] = chart.xRange as [number, number]
      expect(to - from, chart.query).toBe(24 * 3600)
      expect(Math.abs(to - Date.now() / 1000), chart.query).toBeLessThan(600)
    }
    const tables = await page.$$eval('.table', (elements) =>
      elements.map((element) => ({
        query: element.getAttribute('data-query'),
        rows: element.querySelectorAll('tbody tr').length,
      })),
    )
    for (const table of tables) expect(table.rows, table.query).toBeGreaterThan(0)
    // The slowest turns say what was said.
    const said = await page.$$eval('[data-query="slowest-turns"] td.text', (cells) =>
      cells.map((cell) => cell.textContent ?? ''),
    )
    expect(said.some((text) => text.trim().length > 0)).toBe(true)
    // Conversations from both ways in: the webhook and LiveKit-shaped OpenTelemetry spans (#34).
    const sources = await page.$eval('[data-query="sources"]', (table) => table.textContent ?? '')
    expect(sources).toContain('webhook')
    expect(sources).toContain('OpenTelemetry: livekit-agents')
    const conversations = await page.$eval(
      '[data-query="conversations"] .value',
      (value) => value.textContent,
    )
    expect(Number(conversations)).toBeGreaterThan(0)

    // Everything came from this endpoint (uPlot from node_modules), and no request carried SQL.
    expect(requested).toContain('/overview/uplot.js')
    expect(requested.every((path) => path === '/' || path.startsWith('/overview/'))).toBe(true)

    mkdirSync(dirname(screenshot), { recursive: true })
    await page.screenshot({ path: screenshot as `${string}.png`, fullPage: true })
  }, 240_000)

  it('answers the page without the token, but only as the loopback host and to no other site', async () => {
    const own = { host: `127.0.0.1:${port}` }
    const page = await send(port, '/', own)
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toContain('text/html')
    expect(page.headers['content-security-policy']).toContain("default-src 'self'")
    const data = await send(port, '/overview/data/e2e-latency', { ...own, 'sec-fetch-site': 'same-origin' })
    expect(data.status, data.body).toBe(200)
    expect(JSON.parse(data.body).chart.x.length).toBeGreaterThan(0)

    // DNS rebinding: the page under another name reads nothing.
    expect((await send(port, '/', { host: `attacker.example:${port}` })).status).toBe(421)
    expect(
      (await send(port, '/overview/data/slowest-turns', { host: `attacker.example:${port}` })).status,
    ).toBe(421)
    // Another site's page asking for the data (fetch, <script src>): refused, and no CORS granted.
    const crossSite = await send(port, '/overview/data/slowest-turns', {
      ...own,
      origin: 'https://attacker.example',
      'sec-fetch-site': 'cross-site',
    })
    expect(crossSite.status).toBe(403)
    expect(crossSite.headers['access-control-allow-origin']).toBeUndefined()
    // Only named queries: an unknown name is not found, and SQL still needs the token.
    expect((await send(port, '/overview/data/system.tables', own)).status).toBe(404)
    expect((await send(port, `/?query=${encodeURIComponent('SELECT 1')}`, own)).status).toBe(401)
    expect((await send(port, '/overview/data/e2e-latency', own, 'POST')).status).toBe(405)
  })
})
