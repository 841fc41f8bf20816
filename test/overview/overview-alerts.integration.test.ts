import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import puppeteer, { type Browser } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SqlEndpoint, startSqlEndpoint } from '../../dev-server/sql-endpoint.ts'
import { type AlertmanagerServer, startAlertmanager } from '../observability/alertmanager-server.ts'
import { freePort } from '../support/private-kafka.ts'

// The overview page's alerts section (issue #22) in headless chromium: with a real Alertmanager
// (Debian's) holding a firing and a silenced alert, the page lists both, read by the dev server
// from Alertmanager's API (the browser asks only /overview/alerts); with none running, the page
// says "alerting not running" — no error. /overview/alerts keeps the Host and cross-site guards.
// No ClickHouse here: the charts' queries are not what this test reads.
const chromium = '/usr/bin/chromium'
const dir = mkdtempSync(join(tmpdir(), 'va-overview-alerts-'))
const noClickHouse = () => {
  throw new Error('no ClickHouse in this test')
}

function get(port: number, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, headers }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        body += chunk
      })
      response.on('end', () => resolve({ status: response.statusCode!, body }))
    })
    outgoing.on('error', reject)
    outgoing.end()
  })
}

let browser: Browser
let alertmanager: AlertmanagerServer
let withAlerting: SqlEndpoint
let withoutAlerting: SqlEndpoint

async function alertsSection(endpoint: SqlEndpoint) {
  const page = await browser.newPage()
  const asked: string[] = []
  page.on('request', (outgoing) => asked.push(outgoing.url()))
  await page.goto(`${endpoint.url}/`, { waitUntil: 'load' })
  await page.waitForSelector('#alerts[data-state]', { timeout: 60_000 })
  const section = await page.$eval('#alerts', (element) => ({
    state: element.getAttribute('data-state'),
    text: element.textContent ?? '',
    rows: [...element.querySelectorAll('tbody tr')].map((row) =>
      [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? ''),
    ),
  }))
  await page.close()
  return { ...section, asked }
}

beforeAll(async () => {
  alertmanager = await startAlertmanager({})
  const startsAt = new Date(Date.now() - 120_000).toISOString()
  const posted = await fetch(`${alertmanager.url}/api/v2/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([
      {
        labels: { alertname: 'VoiceAgentFailedRooms', severity: 'critical', agent: 'Billing' },
        annotations: { summary: 'Agent Billing had 4 failed rooms in 10 minutes' },
        startsAt,
      },
      {
        labels: { alertname: 'VoiceAgentSlowLlm', severity: 'warning', agent: 'Sales' },
        annotations: { summary: 'Agent Sales: p95 LLM time to first token 2s' },
        startsAt,
      },
    ]),
  })
  expect(posted.status).toBe(200)
  await alertmanager.silence({ alertname: 'VoiceAgentSlowLlm' }, 30, 'campaign launch')
  withAlerting = await startSqlEndpoint(noClickHouse, 0, 'token', '127.0.0.1', alertmanager.url)
  // An Alertmanager URL where none listens: "not running", as with none configured.
  withoutAlerting = await startSqlEndpoint(
    noClickHouse,
    0,
    'token',
    '127.0.0.1',
    `http://127.0.0.1:${await freePort()}`,
  )
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: join(dir, 'chromium'),
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  })
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await withAlerting?.close()
  await withoutAlerting?.close()
  await alertmanager?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('the overview page shows what is firing', () => {
  it("lists Alertmanager's alerts, critical first, silenced ones as such; the browser never asks Alertmanager", async () => {
    const section = await alertsSection(withAlerting)
    expect(section.state).toBe('firing')
    expect(section.rows.map((row) => [row[0], row[1], row[2], row[4]])).toEqual([
      ['VoiceAgentFailedRooms', 'critical', 'agent Billing', 'firing'],
      ['VoiceAgentSlowLlm', 'warning', 'agent Sales', 'silenced'],
    ])
    expect(section.rows[0]![5]).toBe('Agent Billing had 4 failed rooms in 10 minutes')
    expect(section.asked.some((url) => url.startsWith(alertmanager.url))).toBe(false)
  }, 90_000)

  it('says "alerting not running" when no Alertmanager answers', async () => {
    const section = await alertsSection(withoutAlerting)
    expect(section.state).toBe('not-running')
    expect(section.text).toContain('alerting not running (no Alertmanager answers at http://127.0.0.1:')
    const none = await startSqlEndpoint(noClickHouse, 0, 'token')
    const port = Number(new URL(none.url).port)
    const answer = await get(port, '/overview/alerts', { host: `127.0.0.1:${port}` })
    await none.close()
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual({
      running: false,
      message: 'alerting not running (no Alertmanager configured: ALERTMANAGER_URL)',
    })
  }, 90_000)

  it('keeps the loopback Host and cross-site guards on /overview/alerts', async () => {
    const port = Number(new URL(withAlerting.url).port)
    expect((await get(port, '/overview/alerts', { host: `attacker.example:${port}` })).status).toBe(421)
    const crossSite = await get(port, '/overview/alerts', {
      host: `127.0.0.1:${port}`,
      origin: 'https://attacker.example',
      'sec-fetch-site': 'cross-site',
    })
    expect(crossSite.status).toBe(403)
    expect(crossSite.body).not.toContain('Billing')
  })
})
