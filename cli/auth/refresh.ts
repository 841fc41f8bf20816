import * as oidc from 'openid-client'
import { AuthError, describeIdentityError, LoginRequiredError, oauthErrorCode } from './auth-errors.ts'
import type { OidcClient } from './oidc-client.ts'
import { accessTokenNeedsRefresh, type StoredTokens, tokensFromResponse } from './token-set.ts'
import type { TokenStore } from './token-store.ts'

// The refresh grant (spec §4.1, §5.5), done under the store's lock: the first thing inside is to
// re-read the store, because another process may have refreshed while this one waited, and its
// rotated refresh token is the only one still valid. The new tokens are saved before they are used.

export type RefreshContext = {
  environmentName: string
  store: TokenStore
  client: () => Promise<OidcClient>
  now?: () => Date
}

export async function currentTokens(context: RefreshContext): Promise<StoredTokens> {
  const tokens = await context.store.read()
  if (!tokens)
    throw new LoginRequiredError(
      context.environmentName,
      `not logged in to environment "${context.environmentName}"`,
    )
  return tokens
}

/** An access token that is not about to expire, refreshing first when it is. */
export async function validAccessToken(context: RefreshContext): Promise<string> {
  const tokens = await currentTokens(context)
  const now = (context.now ?? (() => new Date()))()
  if (!accessTokenNeedsRefresh(tokens, now)) return tokens.access_token
  return (await refreshTokens(context)).access_token
}

/**
 * Refreshes the stored tokens. `rejectedAccessToken`: the API refused this token (401), so
 * refresh even though it has not expired — unless another process has replaced it already.
 */
export async function refreshTokens(
  context: RefreshContext,
  rejectedAccessToken?: string,
): Promise<StoredTokens> {
  const now = context.now ?? (() => new Date())
  return context.store.withLock(async () => {
    const tokens = await currentTokens(context)
    const stillNeeded =
      rejectedAccessToken === undefined
        ? accessTokenNeedsRefresh(tokens, now())
        : tokens.access_token === rejectedAccessToken
    if (!stillNeeded) return tokens
    if (!tokens.refresh_token) {
      throw new LoginRequiredError(
        context.environmentName,
        'the access token has expired and there is no refresh token',
      )
    }
    const client = await context.client()
    let response: Awaited<ReturnType<typeof oidc.refreshTokenGrant>>
    try {
      response = await oidc.refreshTokenGrant(client.config, tokens.refresh_token)
    } catch (error) {
      if (oauthErrorCode(error) === 'invalid_grant') {
        throw new LoginRequiredError(
          context.environmentName,
          `the session has expired or was revoked (${describeIdentityError(error)})`,
        )
      }
      throw new AuthError(`refreshing the access token failed: ${describeIdentityError(error)}`)
    }
    const refreshed = tokensFromResponse(
      response,
      {
        environment: tokens.environment,
        clientId: tokens.client_id,
        now: now(),
        requestedScope: tokens.scope,
      },
      tokens,
    )
    await context.store.write(refreshed)
    return refreshed
  })
}
