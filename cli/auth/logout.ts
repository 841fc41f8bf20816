import { AuthError } from './auth-errors.ts'
import type { OidcClient } from './oidc-client.ts'
import type { TokenStore } from './token-store.ts'

// Logout (spec §4.1): POST the refresh token (and the client secret of a confidential client)
// to the logout endpoint, which ends the session and revokes the token; then forget the tokens.

export type LogoutResult = 'revoked' | 'already-ended' | 'not-logged-in'

export async function logout(store: TokenStore, client: () => Promise<OidcClient>): Promise<LogoutResult> {
  return store.withLock(async () => {
    const tokens = await store.read()
    if (!tokens) return 'not-logged-in'
    let result: LogoutResult = 'already-ended'
    if (tokens.refresh_token) {
      const { config, clientId, clientSecret } = await client()
      const endpoint = config.serverMetadata().end_session_endpoint
      if (!endpoint)
        throw new AuthError('the identity server announces no logout endpoint (end_session_endpoint)')
      const form = new URLSearchParams({ client_id: clientId, refresh_token: tokens.refresh_token })
      if (clientSecret) form.set('client_secret', clientSecret)
      let response: Response
      try {
        response = await fetch(endpoint, { method: 'POST', body: form, signal: AbortSignal.timeout(30_000) })
      } catch (error) {
        throw new AuthError(
          `cannot reach the logout endpoint ${endpoint}: ${(error as Error).message}; the tokens are kept ` +
            '(use --local-only to forget them without ending the session)',
        )
      }
      if (response.ok) {
        await response.body?.cancel()
        result = 'revoked'
      } else {
        const body = (await response.json().catch(() => ({}))) as {
          error?: string
          error_description?: string
        }
        // An expired or already revoked token: nothing left to end at the server.
        if (body.error !== 'invalid_grant') {
          const what = [body.error, body.error_description].filter(Boolean).join(': ')
          throw new AuthError(
            `logout failed: HTTP ${response.status}${what ? `, ${what}` : ''}; the tokens are kept ` +
              '(use --local-only to forget them without ending the session)',
          )
        }
      }
    }
    await store.remove()
    return result
  })
}

export async function forgetTokens(store: TokenStore): Promise<boolean> {
  return store.withLock(() => store.remove())
}
