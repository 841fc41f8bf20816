import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { checkReadOnlyQuery, readOnlySettings } from '../../core/clickhouse/clickhouse-read-only.ts'
import { loadOrCreateLocalSecret } from '../../core/secrets/local-secret.ts'
import { type SqlEndpoint, startSqlEndpoint } from '../../dev-server/sql-endpoint.ts'
import { embeddedClickHouse } from '../support/embedded-clickhouse.ts'

// The dev SQL endpoint as an attacker meets it: over HTTP, on the real embedded ClickHouse (chDB).
// It must read the pipeline's tables for a local program holding its token, and nothing else:
// no files, no network, no other databases, no other Host, no other site (issue #10).
const cli = fileURLToPath(new URL('../../cli/bin.ts', import.meta.url))
const run = promisify(execFile)

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function send(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? '/',
        headers: options.headers,
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          body += chunk
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

describe('dev SQL endpoint', () => {
  const dir = mkdtempSync(join(tmpdir(), 'va-sql-endpoint-'))
  const dataDir = join(dir, 'clickhouse')
  const stateDir = join(dir, 'state')
  const canary = `canary-${randomBytes(12).toString('hex')}`
  const canaryFile = join(dir, 'secret.txt')
  const outFile = join(dir, 'written-by-query.txt')
  let owner: ClickHouseClient
  let endpoint: SqlEndpoint
  let port: number
  let token: string

  const asProgram = (extra: Record<string, string> = {}): Record<string, string> => ({
    host: `127.0.0.1:${port}`,
    authorization: `Bearer ${token}`,
    ...extra,
  })
  const query = (sql: string, headers: Record<string, string> = asProgram()) =>
    send(port, { headers, body: sql })

  beforeAll(async () => {
    writeFileSync(canaryFile, `${canary}\n`)
    // The data directory's owner (in `npm run dev`, the worker): the pipeline's tables and a row.
    owner = embeddedClickHouse(dataDir)
    await runMigrations(owner, 'voice_analytics')
    await owner.command({
      query: "INSERT INTO voice_analytics.handoffs (session_id) VALUES ('session-from-the-pipeline')",
    })
    token = await loadOrCreateLocalSecret(stateDir, 'sql-endpoint-token')
    endpoint = await startSqlEndpoint(() => embeddedClickHouse(dataDir), 0, token)
    port = Number(new URL(endpoint.url).port)
  })
  afterAll(async () => {
    await endpoint?.close()
    await owner?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers a SELECT on the pipeline tables to a local program with the token', async () => {
    const answer = await query('SELECT session_id FROM voice_analytics.handoffs')
    expect(answer.status, answer.body).toBe(200)
    expect(answer.body).toBe('session-from-the-pipeline\n')
    const cookbookLike = await query(
      'WITH counts AS (SELECT count() AS n FROM voice_analytics.conversations) ' +
        "SELECT n, countIf(session_id != '') AS handoffs, toTypeName(n) FROM counts, voice_analytics.handoffs GROUP BY n",
    )
    expect(cookbookLike.status, cookbookLike.body).toBe(200)
    expect(cookbookLike.body).toBe('0\t1\tUInt64\n')
    const show = await query('SHOW TABLES FROM voice_analytics')
    expect(show.body).toContain('conversations\n')
  })

  it('lets every query of docs/sql-cookbook.md through the check', async () => {
    const cookbook = readFileSync(new URL('../../docs/sql-cookbook.md', import.meta.url), 'utf8')
    const queries = [...cookbook.matchAll(/^```sql\n([\s\S]*?)^```/gm)].map((match) => match[1]!)
    expect(queries.length).toBeGreaterThan(10)
    const session = embeddedClickHouse(dataDir)
    try {
      for (const sql of queries)
        await expect(
          checkReadOnlyQuery(session, { sql, format: 'TSV', final: true }),
          sql,
        ).resolves.toBeTypeOf('string')
    } finally {
      await session.close()
    }
    // a SETTINGS clause that repeats what is in force is harmless, as the cookbook says
    expect((await query('SELECT count() FROM voice_analytics.handoffs SETTINGS final = 1')).body).toBe('1\n')
  })

  it.each([
    ['file() as a table', `SELECT * FROM file('${canaryFile}', 'LineAsString')`, 'table function file()'],
    ['file() as a function', `SELECT file('${canaryFile}')`, 'function file()'],
    [
      'the environment of the process',
      "SELECT * FROM file('/proc/self/environ', 'LineAsString')",
      'table function file()',
    ],
    ['/etc/passwd', "SELECT * FROM file('/etc/passwd', 'LineAsString')", 'table function file()'],
    [
      'a schema inferred from a file',
      `DESCRIBE TABLE file('${canaryFile}', 'CSVWithNames')`,
      'table function file()',
    ],
    ['url()', `SELECT * FROM url('http://127.0.0.1:${1}/x', 'LineAsString')`, 'table function url()'],
    ['remote()', "SELECT * FROM remote('127.0.0.1:9000', system.one)", 'table function remote()'],
    ['s3()', "SELECT * FROM s3('http://127.0.0.1:1/bucket/x', 'LineAsString')", 'table function s3()'],
    ['hdfs()', "SELECT * FROM hdfs('hdfs://127.0.0.1:1/x', 'LineAsString')", 'table function hdfs()'],
    ['mysql()', "SELECT * FROM mysql('127.0.0.1:1', 'd', 't', 'u', 'p')", 'table function mysql()'],
    [
      'postgresql()',
      "SELECT * FROM postgresql('127.0.0.1:1', 'd', 't', 'u', 'p')",
      'table function postgresql()',
    ],
    ['executable()', "SELECT * FROM executable('id', 'TSV', 'x String')", 'table function executable()'],
    [
      'a remote host in hasColumnInTable()',
      "SELECT hasColumnInTable('system', 'one', 'dummy')",
      'function hasColumnInTable()',
    ],
    ['INTO OUTFILE', `SELECT 'x' INTO OUTFILE '${outFile}'`, 'INTO OUTFILE'],
    ['a SETTINGS clause that lifts read-only', 'SELECT 1 SETTINGS readonly = 0', /Cannot modify 'readonly'/],
    [
      'a SETTINGS clause that lifts a restriction',
      'SELECT 1 SETTINGS allow_introspection_functions = 1',
      /Cannot modify 'allow_introspection_functions'/,
    ],
    [
      'a second statement',
      `SELECT 1; SELECT * FROM file('${canaryFile}', 'LineAsString')`,
      'Multi-statements',
    ],
    ['a write', "INSERT INTO voice_analytics.handoffs (session_id) VALUES ('x')", 'not InsertQuery'],
    ['DDL', 'DROP TABLE voice_analytics.handoffs', 'not DropQuery'],
  ])('refuses %s with a clear error and returns none of it', async (_what, sql, expected) => {
    const answer = await query(sql)
    expect(answer.status).toBeGreaterThanOrEqual(400)
    expect(answer.body).toMatch(expected)
    expect(answer.body).not.toContain(canary)
    expect(answer.body).not.toMatch(/PATH=|root:x:0:0/)
    expect(existsSync(outFile)).toBe(false)
  })

  it('the session itself is read-only: the engine refuses table functions that read files, and writes', async () => {
    const session = embeddedClickHouse(dataDir)
    try {
      const tableFunction = session.exec({
        query: `SELECT * FROM file('${canaryFile}', 'LineAsString')`,
        clickhouse_settings: readOnlySettings(true),
      })
      await expect(tableFunction).rejects.toThrow(/readonly/i)
      await expect(
        session.command({ query: 'SET readonly = 0', clickhouse_settings: readOnlySettings(true) }),
      ).rejects.toThrow(/readonly/i)
      await expect(
        session.command({ query: "INSERT INTO voice_analytics.handoffs (session_id) VALUES ('x')" }),
      ).rejects.toThrow(/readonly/i)
    } finally {
      await session.close()
    }
  })

  it.each([
    ['an unknown name (DNS rebinding)', 'rebind.attacker.example'],
    ['the right name on another port', '127.0.0.1:1'],
    ['no port', 'localhost'],
  ])('refuses a Host of %s with 421, token or not', async (_what, host) => {
    const answer = await query(
      'SELECT 1',
      asProgram({ host: host.includes('attacker') ? `${host}:${port}` : host }),
    )
    expect(answer.status).toBe(421)
    expect(answer.body).not.toBe('1\n')
  })

  it('answers as localhost and [::1] too', async () => {
    for (const host of [`localhost:${port}`, `[::1]:${port}`]) {
      const answer = await query('SELECT 1', asProgram({ host }))
      expect(answer.status, host).toBe(200)
    }
  })

  it('refuses cross-site browser requests: an <img>, a form, a page of another origin, and grants no CORS', async () => {
    // <img src="http://127.0.0.1:port/?query=..."> on any web page
    const image = await send(port, {
      method: 'GET',
      path: `/?query=${encodeURIComponent('SELECT 1')}`,
      headers: { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'image' },
    })
    expect(image.status).toBe(403)
    // a form POST (text/plain) from another site, as an older browser sends it: Origin only
    const form = await send(port, {
      headers: {
        host: `127.0.0.1:${port}`,
        origin: 'https://attacker.example',
        'content-type': 'text/plain',
      },
      body: 'SELECT 1',
    })
    expect(form.status).toBe(403)
    // even a page that somehow has the token is refused when it is another site
    const withToken = await query(
      'SELECT 1',
      asProgram({ origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' }),
    )
    expect(withToken.status).toBe(403)
    const preflight = await send(port, {
      method: 'OPTIONS',
      headers: {
        host: `127.0.0.1:${port}`,
        origin: 'https://attacker.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    })
    expect(preflight.status).toBeGreaterThanOrEqual(400)
    for (const answer of [image, form, withToken, preflight])
      expect(answer.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('refuses a missing or wrong token with 401, also in the query string, and never echoes it', async () => {
    const missing = await query('SELECT 1', { host: `127.0.0.1:${port}` })
    expect(missing.status).toBe(401)
    expect(missing.headers['www-authenticate']).toBe('Bearer')
    const wrong = await query('SELECT 1', asProgram({ authorization: 'Bearer not-the-token' }))
    expect(wrong.status).toBe(401)
    expect(wrong.body).not.toContain('not-the-token')
    expect(wrong.body).not.toContain(token)
    const inUrl = await send(port, {
      path: `/?token=${token}&access_token=${token}`,
      headers: { host: `127.0.0.1:${port}` },
      body: 'SELECT 1',
    })
    expect(inUrl.status).toBe(401)
  })

  it('`voice-analytics query` finds the token in the state directory by itself', async () => {
    const env = {
      ...process.env,
      VA_STATE_DIR: stateDir,
      DEV_SQL_PORT: String(port),
      CLICKHOUSE_DATA_DIR: dataDir,
      CLICKHOUSE_URL: '',
    }
    const { stdout } = await run(
      process.execPath,
      [cli, 'query', 'SELECT session_id FROM voice_analytics.handoffs', '--format', 'TSV'],
      { env, timeout: 60_000 },
    )
    expect(stdout).toBe('session-from-the-pipeline\n')
    // another checkout's state directory: no token, refused by the endpoint
    await expect(
      run(process.execPath, [cli, 'query', 'SELECT 1'], {
        env: { ...env, VA_STATE_DIR: join(dir, 'elsewhere') },
        timeout: 60_000,
      }),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('missing or wrong token') })
  })
})
