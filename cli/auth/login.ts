import * as oidc from 'openid-client'
import type { Environment } from '../config/environments.ts'
import { parseLoopbackRedirectUri } from '../config/loopback.ts'
import { AuthError, describeIdentityError } from './auth-errors.ts'
import { preflightAuthorizationRequest } from './authorization-preflight.ts'
import { startCallbackListener } from './loopback-listener.ts'
import type { OidcClient } from './oidc-client.ts'
import { type StoredTokens, tokensFromResponse } from './token-set.ts'
import type { TokenStore } from './token-store.ts'

// Authorization Code + PKCE (spec §4.1, §5): PKCE pair and state, the authorization URL, the
// loopback callback, the code exchange (ID token checked: JWKS signature, iss, aud, exp), and
// the tokens saved to the store.

export type LoginOptions = {
  environment: Environment
  client: OidcClient
  store: TokenStore
  scope: string
  locale?: string
  timeoutMs: number
  /** Shows the authorization URL to the user; returns after trying to open a browser. */
  presentUrl(url: URL): Promise<void>
  now?: () => Date
}

export async function login(options: LoginOptions): Promise<StoredTokens> {
  const { environment, client, store } = options
  const redirect = parseLoopbackRedirectUri(environment.redirect_uri)
  const codeVerifier = oidc.randomPKCECodeVerifier() // 43 URL-safe characters
  const state = oidc.randomState()
  const parameters: Record<string, string> = {
    redirect_uri: redirect.uri,
    response_type: 'code',
    scope: options.scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
  }
  if (options.locale) {
    // kc_locale is what the platform documents; Keycloak 26 honours it only inside the login pages,
    // and the standard ui_locales on the authorization request, so both are sent.
    parameters.kc_locale = options.locale
    parameters.ui_locales = options.locale
  }
  const authorizationUrl = oidc.buildAuthorizationUrl(client.config, parameters)
  await preflightAuthorizationRequest(authorizationUrl, redirect.uri)

  const listener = await startCallbackListener(redirect, state, options.timeoutMs)
  try {
    await options.presentUrl(authorizationUrl)
    const callbackUrl = await listener.callback
    let response: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>
    try {
      response = await oidc.authorizationCodeGrant(client.config, callbackUrl, {
        pkceCodeVerifier: codeVerifier,
        expectedState: state,
        idTokenExpected: true,
      })
    } catch (error) {
      throw new AuthError(`the code exchange failed: ${describeIdentityError(error)}`)
    }
    const claims = response.claims()
    const tokens = tokensFromResponse(response, {
      environment: environment.name,
      clientId: environment.client_id,
      now: (options.now ?? (() => new Date()))(),
      requestedScope: options.scope,
      identity: {
        ...(claims?.sub ? { subject: claims.sub } : {}),
        ...(typeof claims?.preferred_username === 'string' ? { username: claims.preferred_username } : {}),
        ...(typeof claims?.email === 'string' ? { email: claims.email } : {}),
      },
    })
    await store.withLock(() => store.write(tokens))
    return tokens
  } finally {
    await listener.close()
  }
}
