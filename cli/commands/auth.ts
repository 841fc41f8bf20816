import { type Command, InvalidArgumentError } from 'commander'
import { LoginRequiredError } from '../auth/auth-errors.ts'
import { openInBrowser } from '../auth/browser.ts'
import { login } from '../auth/login.ts'
import { forgetTokens, logout } from '../auth/logout.ts'
import { formatRelative, tokenStatus } from '../auth/token-set.ts'
import { openPlatformSession } from '../platform/session.ts'

// `auth login | status | logout`: the platform session of one environment. Tokens are never
// printed; the authorization URL goes to stderr, results to stdout.

export const environmentOptionHelp =
  'platform environment from config.json (default: $VOICE_ANALYTICS_ENV, default_environment, or the only one)'

const positiveSeconds = (text: string) => {
  const value = Number(text)
  if (!Number.isFinite(value) || value <= 0)
    throw new InvalidArgumentError('must be a positive number of seconds')
  return value
}

export function registerAuthCommand(program: Command): void {
  const auth = program.command('auth').description('log in to the voice-agent platform (OAuth 2.0 + PKCE)')

  auth
    .command('login')
    .description('log in through the browser (Authorization Code + PKCE) and keep the tokens')
    .option('--env <name>', environmentOptionHelp)
    .option('--no-browser', 'do not open a browser; print the URL to open (to stderr)')
    .option('--locale <code>', 'language of the login page (sent as kc_locale), e.g. de')
    .option(
      '--scope <scopes>',
      'space-separated scopes (default: the environment\'s, or "openid profile email offline_access")',
    )
    .option('--timeout <seconds>', 'how long to wait for the browser to come back', positiveSeconds, 300)
    .action(
      async (options: {
        env?: string
        browser: boolean
        locale?: string
        scope?: string
        timeout: number
      }) => {
        const session = await openPlatformSession(options.env)
        const { environment } = session
        const tokens = await login({
          environment,
          client: await session.client(),
          store: session.store,
          scope: options.scope ?? environment.scope,
          ...(options.locale ? { locale: options.locale } : {}),
          timeoutMs: options.timeout * 1000,
          presentUrl: async (url) => {
            const opened = options.browser && (await openInBrowser(url.href))
            process.stderr.write(
              opened
                ? `Opened the browser to log in to "${environment.name}". If it did not open, visit:\n${url.href}\n`
                : `Open this URL in a browser to log in to "${environment.name}":\n${url.href}\n`,
            )
            process.stderr.write(`Waiting for the login to come back to ${environment.redirect_uri} ...\n`)
          },
        })
        const who = tokens.username ?? tokens.subject ?? 'unknown user'
        process.stdout.write(
          `Logged in to "${environment.name}" as ${who}${tokens.email ? ` <${tokens.email}>` : ''}\n`,
        )
        process.stdout.write(`Scopes: ${tokens.scope}\n`)
      },
    )

  auth
    .command('status')
    .description('who is logged in, which scopes, and when the tokens expire (never the tokens)')
    .option('--env <name>', environmentOptionHelp)
    .action(async (options: { env?: string }) => {
      const session = await openPlatformSession(options.env)
      const tokens = await session.store.read()
      if (!tokens)
        throw new LoginRequiredError(
          session.environment.name,
          `not logged in to "${session.environment.name}"`,
        )
      const now = new Date()
      const status = tokenStatus(tokens, now)
      const lines = [
        `Environment: ${session.environment.name} (${session.environment.auth_url})`,
        `User: ${tokens.username ?? '?'}${tokens.email ? ` <${tokens.email}>` : ''}${tokens.subject ? ` (subject ${tokens.subject})` : ''}`,
        `Client: ${tokens.client_id}`,
        `Scopes: ${tokens.scope}`,
        `Access token: ${status.accessExpired ? 'expired' : 'expires'} ${status.accessExpiresAt.toISOString()} (${formatRelative(status.accessExpiresAt, now)})`,
        `Refresh token: ${
          !tokens.refresh_token
            ? 'none'
            : `${status.offline ? 'offline, idle limit' : 'expires'} ${
                status.refreshExpiresAt
                  ? `${status.refreshExpiresAt.toISOString()} (${formatRelative(status.refreshExpiresAt, now)})`
                  : 'unknown'
              }`
        }`,
      ]
      process.stdout.write(`${lines.join('\n')}\n`)
      for (const warning of status.warnings) process.stderr.write(`warning: ${warning}\n`)
      if (status.refreshExpired) process.exitCode = 1
    })

  auth
    .command('logout')
    .description(
      'end the session at the identity server (revokes the refresh token) and delete the local tokens',
    )
    .option('--env <name>', environmentOptionHelp)
    .option('--local-only', 'only delete the local tokens (identity server unreachable)')
    .action(async (options: { env?: string; localOnly?: boolean }) => {
      const session = await openPlatformSession(options.env)
      const name = session.environment.name
      if (options.localOnly) {
        const removed = await forgetTokens(session.store)
        process.stdout.write(
          removed ? `Deleted the local tokens of "${name}"\n` : `Not logged in to "${name}"\n`,
        )
        return
      }
      const result = await logout(session.store, session.client)
      const messages = {
        revoked: `Logged out of "${name}": session ended, refresh token revoked, local tokens deleted`,
        'already-ended': `Logged out of "${name}": the session had already ended; local tokens deleted`,
        'not-logged-in': `Not logged in to "${name}"`,
      }
      process.stdout.write(`${messages[result]}\n`)
    })
}
