import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { readPrices } from '../../core/pricing/price-store.ts'
import { loadOrCreateLocalSecret } from '../../core/secrets/local-secret.ts'
import { type SqlEndpoint, startSqlEndpoint } from '../../dev-server/sql-endpoint.ts'
import { embeddedClickHouse } from '../support/embedded-clickhouse.ts'

// `voice-analytics prices set|list|import` as a user runs it, on an embedded data directory: first
// with nobody holding it (the CLI opens it itself), then while another process holds it and serves
// the dev endpoint (as `./run dev` does), where the CLI's changes go through POST /prices behind the
// endpoint's token. Refusals exit 1 naming the problem, and store nothing.
const cli = fileURLToPath(new URL('../../cli/bin.ts', import.meta.url))
const example = fileURLToPath(new URL('../../docs/prices.example.csv', import.meta.url))
const run = promisify(execFile)
const dir = mkdtempSync(join(tmpdir(), 'va-prices-cli-'))
const dataDir = join(dir, 'clickhouse')
const stateDir = join(dir, 'state')

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

let devPort = 0
async function voiceAnalytics(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], {
      env: {
        ...process.env,
        CLICKHOUSE_URL: '',
        CLICKHOUSE_DATA_DIR: dataDir,
        VA_STATE_DIR: stateDir,
        DEV_SQL_PORT: String(devPort),
      },
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

interface Listed {
  component: string
  telecom_provider: string
  direction: string
  price: number
  valid_from: string
  valid_until: string | null
}
const listed = async () =>
  (await voiceAnalytics('prices', 'list', '--format', 'JSONEachRow')).stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Listed)

let owner: ClickHouseClient | undefined
let endpoint: SqlEndpoint | undefined
afterAll(async () => {
  await endpoint?.close()
  await owner?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('voice-analytics prices', () => {
  it('imports the example file, lists it with each price’s end, and refuses a duplicate (nobody holds the data)', async () => {
    devPort = await freePort()
    expect((await voiceAnalytics('migrate')).code).toBe(0)
    const imported = await voiceAnalytics('prices', 'import', example)
    expect(imported, imported.stderr).toMatchObject({ code: 0 })
    expect(imported.stdout).toBe('8 price(s) stored; costs use them from their valid_from on\n')
    const prices = await listed()
    expect(prices.length).toBe(8)
    const telnyx = prices.filter((row) => row.telecom_provider === 'Telnyx')
    expect(telnyx.map((row) => [row.price, row.valid_from, row.valid_until])).toEqual([
      [0.008, '2020-01-01 00:00:00.000', '2026-06-01 00:00:00.000'],
      [0.007, '2026-06-01 00:00:00.000', null],
    ])
    // Imported again: every line a duplicate, nothing stored.
    const again = await voiceAnalytics('prices', 'import', example)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(
      'line 6: telephony Twilio either direction already has a price from 2020-01-01T00:00:00.000Z (the stored price from 2020-01-01T00:00:00.000Z)',
    )
    expect((await listed()).length).toBe(8)
  })

  it('while another process holds the data, sets and lists through its endpoint, which refuses overlaps', async () => {
    owner = embeddedClickHouse(dataDir)
    const token = await loadOrCreateLocalSecret(stateDir, 'sql-endpoint-token')
    endpoint = await startSqlEndpoint(() => embeddedClickHouse(dataDir), 0, token)
    devPort = Number(new URL(endpoint.url).port)
    const vonage = [
      '--component',
      'telephony',
      '--provider',
      'Vonage',
      '--unit',
      'minute',
      '--currency',
      'EUR',
    ]
    const set = await voiceAnalytics(
      'prices',
      'set',
      ...vonage,
      '--price',
      '0.009',
      '--from',
      '2026-01-01',
      '--to',
      '2026-07-01',
    )
    expect(set, set.stderr).toMatchObject({
      code: 0,
      stdout: '1 price(s) stored; costs use them from their valid_from on\n',
    })
    expect(
      (await readPrices(owner, 'voice_analytics')).filter((row) => row.telecom_provider === 'Vonage'),
    ).toEqual([
      expect.objectContaining({
        price: '0.009',
        valid_from: Date.parse('2026-01-01T00:00:00Z'),
        valid_to: Date.parse('2026-07-01T00:00:00Z'),
      }),
    ])
    expect((await listed()).filter((row) => row.telecom_provider === 'Vonage').length).toBe(1)

    const overlapping = await voiceAnalytics(
      'prices',
      'set',
      ...vonage,
      '--price',
      '0.010',
      '--from',
      '2026-06-01',
    )
    expect(overlapping.code).toBe(1)
    expect(overlapping.stderr).toContain(
      'the new price: telephony Vonage either direction from 2026-06-01T00:00:00.000Z overlaps the stored price from 2026-01-01T00:00:00.000Z, valid until 2026-07-01T00:00:00.000Z',
    )
    const otherCurrency = await voiceAnalytics(
      'prices',
      'set',
      ...vonage.slice(0, -1),
      'USD',
      '--price',
      '0.010',
      '--from',
      '2026-07-01',
    )
    expect(otherCurrency.stderr).toContain('prices are kept in one currency')
    expect((await readPrices(owner, 'voice_analytics')).length).toBe(9)

    // The endpoint's write is behind its token like its SQL.
    const anonymous = await fetch(`${endpoint.url}/prices`, { method: 'POST', body: '{"changes":[]}' })
    expect(anonymous.status).toBe(401)
  })
})
