import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliEnvironment, runCli, startCli, transcript, writeCliConfig } from './cli-process.ts'
import { completeLoginInBrowser, type HeadlessLoginOptions } from './headless-login.ts'
import { realm, realmUrl, tryRefreshGrant } from './keycloak-realm.ts'
import { type PlatformApiStandIn, startPlatformApiStandIn } from './platform-api-stand-in.ts'

// The CLI's platform journey against the real Keycloak of the local stack (test realm in
// test/stack/keycloak-realm.json, 15 s access tokens, rotating refresh tokens) and a stand-in
// for the platform API that verifies the tokens like the real one. The CLI runs as a child
// process, exactly as a user runs it; every line it prints is kept and searched for secrets.

type Tokens = { access_token: string; refresh_token: string; id_token: string; access_expires_at: string }

const ingressSecret = 'ingress-shared-secret-4b1d'
const secretsSeen = new Set<string>([ingressSecret, realm.confidentialClient.secret!])

let work: string
let configDir: string
let secretFile: string
let api: PlatformApiStandIn

const env = (extra: Record<string, string> = {}) => cliEnvironment(configDir, extra)
const tokenPath = (environment: string) => join(configDir, 'tokens', `${environment}.json`)

async function readTokens(environment = 'test'): Promise<Tokens> {
  const tokens = JSON.parse(await readFile(tokenPath(environment), 'utf8')) as Tokens
  for (const token of [tokens.access_token, tokens.refresh_token, tokens.id_token]) secretsSeen.add(token)
  return tokens
}

async function tokenFileExists(environment = 'test'): Promise<boolean> {
  return stat(tokenPath(environment)).then(
    () => true,
    () => false,
  )
}

/** `auth login --no-browser`, with the headless browser taking the printed URL through Keycloak. */
async function login(args: string[], browser: Partial<HeadlessLoginOptions> = {}, extraEnv = {}) {
  const cli = startCli(['auth', 'login', '--no-browser', '--timeout', '60', ...args], env(extraEnv))
  const [url] = await cli.waitForStderr(/^https?:\/\/\S+\/protocol\/openid-connect\/auth\?\S+$/m)
  const browserResult = await completeLoginInBrowser(url, {
    username: realm.user.username,
    password: realm.user.password,
    ...browser,
  })
  return { url: new URL(url), browser: browserResult, cli: await cli.done }
}

async function waitUntilAccessTokenExpired(environment = 'test'): Promise<void> {
  const { access_expires_at } = await readTokens(environment)
  const wait = Date.parse(access_expires_at) - Date.now() + 1_000
  if (wait > 0) await sleep(wait)
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'va-cli-'))
  configDir = join(work, 'config')
  secretFile = join(work, 'client-secret')
  await writeFile(secretFile, `${realm.confidentialClient.secret}\n`, { mode: 0o600 })
  api = await startPlatformApiStandIn({ issuer: realmUrl(), audience: realm.apiAudience })
  const common = { base_url: api.url, auth_url: realmUrl(), console_url: 'http://127.0.0.1:9/console' }
  await writeCliConfig(configDir, {
    default_environment: 'test',
    environments: {
      test: {
        ...common,
        client_id: realm.publicClient.clientId,
        redirect_uri: realm.publicClient.redirectUri,
      },
      confidential: {
        ...common,
        client_id: realm.confidentialClient.clientId,
        redirect_uri: realm.confidentialClient.redirectUri,
        client_secret_file: secretFile,
      },
      'wrong-redirect': {
        ...common,
        client_id: realm.publicClient.clientId,
        redirect_uri: 'http://127.0.0.1:53699/not-registered',
      },
    },
  })
})

afterAll(async () => {
  await api?.close()
  if (work) await rm(work, { recursive: true, force: true })
})

describe('voice-analytics CLI against the real Keycloak', () => {
  it('logs in, calls the API, refreshes on expiry and after a 401, logs out', async () => {
    // login: PKCE S256, state, offline_access; tokens stored owner-only
    const { url, browser, cli } = await login([])
    expect(cli.stderr).toContain('Open this URL in a browser')
    expect(cli.code, cli.stderr).toBe(0)
    expect(cli.stdout).toContain(`Logged in to "test" as ${realm.user.username} <${realm.user.email}>`)
    expect(url.searchParams.get('code_challenge_method')).toBe('S256')
    expect(url.searchParams.get('scope')).toBe('openid profile email offline_access')
    expect(url.searchParams.get('redirect_uri')).toBe(realm.publicClient.redirectUri)
    expect(browser.callbackStatus).toBe(200)
    expect((await stat(tokenPath('test'))).mode & 0o777).toBe(0o600)
    expect((await stat(join(configDir, 'tokens'))).mode & 0o777).toBe(0o700)
    const first = await readTokens()

    const status = await runCli(['auth', 'status'], env())
    expect(status.code).toBe(0)
    expect(status.stdout).toContain(`User: ${realm.user.username}`)
    // Keycloak lists granted scopes in no fixed order.
    const scopes = /^Scopes: (.+)$/m.exec(status.stdout)?.[1]?.split(' ').sort()
    expect(scopes).toEqual(['email', 'offline_access', 'openid', 'profile'])
    expect(status.stdout).toMatch(/Access token: expires \S+ \(in \d+s\)/)
    expect(status.stdout).toMatch(/Refresh token: offline, idle limit \S+ \(in 29d 23h\)/)

    // whoami with the fresh token: no refresh
    const whoami = await runCli(['whoami'], env())
    expect(whoami.code, whoami.stderr).toBe(0)
    expect(JSON.parse(whoami.stdout)).toMatchObject({
      userName: realm.user.username,
      email: realm.user.email,
    })
    expect(api.requests.at(-1)).toMatchObject({
      path: '/api/Users/me',
      status: 200,
      token: first.access_token,
    })

    // webhooks register: the ingress URL with its token from WEBHOOK_SECRETS; only the id is printed
    const register = await runCli(
      [
        'webhooks',
        'register',
        '--url',
        'http://127.0.0.1:8080',
        '--insecure',
        '--token-from',
        'prod',
        '--body-json',
        '{"events":["ConversationComplete"],"description":"from json"}',
        '--field',
        'description=voice-analytics ingress',
      ],
      env({ WEBHOOK_SECRETS: `staging=other-secret-value,prod=${ingressSecret}` }),
    )
    secretsSeen.add('other-secret-value')
    expect(register.code, register.stderr).toBe(0)
    const webhookId = register.stdout.trim()
    expect(webhookId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(api.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: '/api/Webhooks',
      status: 201,
      body: {
        url: `http://127.0.0.1:8080/webhooks/conversation-complete?token=${ingressSecret}`,
        events: ['ConversationComplete'],
        description: 'voice-analytics ingress',
      },
    })
    // an http:// ingress URL without --insecure: refused before anything is sent (the token would be in clear)
    const requestsBefore = api.requests.length
    const clearText = await runCli(
      ['webhooks', 'register', '--url', 'http://127.0.0.1:8080', '--token-from', 'prod'],
      env({ WEBHOOK_SECRETS: `prod=${ingressSecret}` }),
    )
    expect(clearText.code).toBe(1)
    expect(clearText.stderr).toContain('the ingress token would travel in clear text')
    expect(clearText.stdout).toBe('')
    expect(api.requests.length).toBe(requestsBefore)
    // an error answer of the API: status, code and description, non-zero exit
    const refused = await runCli(
      ['webhooks', 'register', '--url', 'http://127.0.0.1:8080', '--field', 'url=ftp://x'],
      env(),
    )
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(
      'POST /api/Webhooks failed: HTTP 400 Bad Request, invalid_request: url must be an http(s) URL',
    )
    expect(refused.stdout).toBe('')
    const list = await runCli(['webhooks', 'list'], env())
    expect(list.stdout).toContain(webhookId)
    expect(list.stdout).toContain('http://127.0.0.1:8080/webhooks/conversation-complete?[redacted]  (prod)')

    // the access token expires: the next call refreshes first, and the rotated tokens are saved
    await waitUntilAccessTokenExpired()
    const afterExpiry = await runCli(['whoami'], env())
    expect(afterExpiry.code, afterExpiry.stderr).toBe(0)
    const second = await readTokens()
    expect(second.access_token).not.toBe(first.access_token)
    expect(second.refresh_token).not.toBe(first.refresh_token)
    expect(api.requests.at(-1)).toMatchObject({ status: 200, token: second.access_token })
    // (The old refresh token is not tried here: Keycloak answers a reused refresh token by ending
    // the session's client session, which would end this journey too. The next refresh spends
    // the saved rotated token, which proves it was persisted.)

    // the API refuses the (unexpired) token once: refreshed with the saved rotated token, sent again
    const before401 = api.requests.length
    api.rejectNext(1)
    const after401 = await runCli(['whoami'], env())
    expect(after401.code, after401.stderr).toBe(0)
    const third = await readTokens()
    expect(third.refresh_token).not.toBe(second.refresh_token)
    expect(api.requests.slice(before401).map((request) => [request.status, request.token])).toEqual([
      [401, second.access_token],
      [200, third.access_token],
    ])

    // logout revokes the refresh token at Keycloak and deletes the local tokens
    const logout = await runCli(['auth', 'logout'], env())
    expect(logout.code, logout.stderr).toBe(0)
    expect(logout.stdout).toContain('session ended, refresh token revoked')
    expect(await tokenFileExists()).toBe(false)
    for (const spent of [third.refresh_token, first.refresh_token]) {
      expect(await tryRefreshGrant(realm.publicClient.clientId, spent)).toMatchObject({
        status: 400,
        error: 'invalid_grant',
      })
    }
    const loggedOut = await runCli(['whoami'], env())
    expect(loggedOut.code).toBe(1)
    expect(loggedOut.stderr).toContain(
      'not logged in to environment "test": run `voice-analytics auth login --env test` again',
    )

    // the revoked refresh token, were it still on disk: the CLI asks for a new login, no stack trace
    await writeFile(tokenPath('test'), JSON.stringify(third), { mode: 0o600 })
    api.rejectNext(1)
    const revoked = await runCli(['whoami'], env())
    expect(revoked.code).toBe(1)
    expect(revoked.stderr).toMatch(/the session has expired or was revoked \(HTTP 400, invalid_grant: .+\)/)
    expect(revoked.stderr).toContain('run `voice-analytics auth login --env test` again')
    expect(revoked.stderr).not.toMatch(/^\s+at /m)
    await runCli(['auth', 'logout', '--local-only'], env())
    expect(await tokenFileExists()).toBe(false)
  })

  it('refreshes once when two processes find the access token expired at the same time', async () => {
    const { cli } = await login([])
    expect(cli.code, cli.stderr).toBe(0)
    const before = await readTokens()
    await waitUntilAccessTokenExpired()
    const first = api.requests.length
    // Keycloak revokes a refresh token on its first use (refreshTokenMaxReuse 0): without the
    // lock, the second process would spend the same token and fail with invalid_grant.
    const results = await Promise.all([runCli(['whoami'], env()), runCli(['whoami'], env())])
    for (const result of results) expect(result.code, result.stderr).toBe(0)
    const after = await readTokens()
    expect(after.refresh_token).not.toBe(before.refresh_token)
    const used = api.requests.slice(first).map((request) => request.token)
    expect(used).toEqual([after.access_token, after.access_token])
    // The rotated refresh token that was saved is the live one: logout can spend it.
    const logout = await runCli(['auth', 'logout'], env())
    expect(logout.stdout).toContain('session ended, refresh token revoked')
  })

  it('aborts a login whose callback carries a tampered state', async () => {
    const { browser, cli } = await login([], { tamperState: true })
    expect(browser.callbackStatus).toBe(400)
    expect(browser.callbackBody).toContain('state mismatch')
    expect(cli.code).toBe(1)
    expect(cli.stderr).toContain(
      'login aborted: the callback\'s "state" does not match the one this login sent',
    )
    expect(await tokenFileExists()).toBe(false)
  })

  it("stops with Keycloak's refusal when the redirect URI is not registered", async () => {
    const result = await runCli(['auth', 'login', '--no-browser', '--env', 'wrong-redirect'], env())
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      'the identity server refused the login request: HTTP 400, Invalid parameter: redirect_uri ' +
        '(the redirect URI http://127.0.0.1:53699/not-registered must be registered exactly',
    )
    expect(result.stderr).not.toContain('Open this URL')
    expect(await tokenFileExists('wrong-redirect')).toBe(false)
  })

  it('logs in a confidential client with its secret from a file or the environment, in German', async () => {
    const { browser, cli } = await login(['--env', 'confidential', '--locale', 'de'])
    expect(cli.code, cli.stderr).toBe(0)
    expect(browser.loginPageLang).toBe('de')
    await readTokens('confidential')
    const whoami = await runCli(['whoami', '--env', 'confidential'], env())
    expect(JSON.parse(whoami.stdout)).toMatchObject({ userName: realm.user.username })
    // A refresh needs the secret too; from the environment variable this time, with the file gone.
    await rm(secretFile)
    const secretEnv = { VOICE_ANALYTICS_CLIENT_SECRET_CONFIDENTIAL: realm.confidentialClient.secret! }
    await waitUntilAccessTokenExpired('confidential')
    const refreshed = await runCli(['whoami', '--env', 'confidential'], env(secretEnv))
    expect(refreshed.code, refreshed.stderr).toBe(0)
    await readTokens('confidential')
    const logout = await runCli(['auth', 'logout', '--env', 'confidential'], env(secretEnv))
    expect(logout.stdout).toContain('session ended, refresh token revoked')
    // The secret was never written anywhere under the config directory.
    for (const entry of await readdir(configDir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue
      const text = await readFile(join(entry.parentPath, entry.name), 'utf8')
      expect(text).not.toContain(realm.confidentialClient.secret)
      expect(text).not.toContain(ingressSecret)
    }
  })

  it('never printed a token or a secret in any of the runs above', () => {
    expect(transcript.length).toBeGreaterThan(20)
    expect(secretsSeen.size).toBeGreaterThan(10)
    const everything = transcript.join('\n')
    for (const secret of secretsSeen)
      expect(everything.includes(secret), 'a token or secret was printed').toBe(false)
  })
})
