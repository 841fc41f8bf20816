import * as oidc from 'openid-client'
import type { Environment } from '../config/environments.ts'
import { isLoopbackHost } from '../config/loopback.ts'
import { AuthError, describeIdentityError } from './auth-errors.ts'

// The identity server as openid-client sees it: discovered from {auth_url}, with the client's
// authentication (none for a public client, client_secret in the form body for a confidential one,
// spec §4.1) and ID token signatures checked against the JWKS on every token response.

export type OidcClient = { config: oidc.Configuration; clientId: string; clientSecret?: string }

const requestTimeoutSeconds = 30

export async function discoverOidcClient(
  environment: Environment,
  clientSecret?: string,
): Promise<OidcClient> {
  const issuer = new URL(environment.auth_url)
  const execute = [oidc.enableNonRepudiationChecks]
  // Environments only allow plain http for loopback addresses (local test servers).
  if (issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname)) execute.push(oidc.allowInsecureRequests)
  const auth = clientSecret ? oidc.ClientSecretPost(clientSecret) : oidc.None()
  try {
    const config = await oidc.discovery(issuer, environment.client_id, undefined, auth, {
      execute,
      timeout: requestTimeoutSeconds,
    })
    return { config, clientId: environment.client_id, ...(clientSecret ? { clientSecret } : {}) }
  } catch (error) {
    throw new AuthError(
      `OIDC discovery at ${environment.auth_url}/.well-known/openid-configuration failed: ${describeIdentityError(error)}`,
    )
  }
}
