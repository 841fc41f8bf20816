import { readFileSync } from 'node:fs'
import { keycloakUrl } from '../stack/servers.ts'

// The test realm (test/stack/keycloak-realm.json, imported by scripts/stack/stack.sh) as the tests
// need it: its clients, user and URLs, read from the realm file so the two never disagree.

type RealmClient = { clientId: string; redirectUris: string[]; secret?: string; publicClient: boolean }
type RealmFile = {
  realm: string
  accessTokenLifespan: number
  clients: RealmClient[]
  users: Array<{ username: string; email: string; credentials: Array<{ value: string }> }>
}

const realmFile = JSON.parse(
  readFileSync(new URL('../stack/keycloak-realm.json', import.meta.url), 'utf8'),
) as RealmFile

const client = (publicClient: boolean) => {
  const found = realmFile.clients.find((entry) => entry.publicClient === publicClient)
  if (!found) throw new Error(`the realm file has no ${publicClient ? 'public' : 'confidential'} client`)
  return { clientId: found.clientId, redirectUri: found.redirectUris[0]!, secret: found.secret }
}

export const realm = {
  name: realmFile.realm,
  accessTokenLifespanSeconds: realmFile.accessTokenLifespan,
  apiAudience: 'voice-agent-api',
  publicClient: client(true),
  confidentialClient: client(false),
  user: {
    username: realmFile.users[0]!.username,
    email: realmFile.users[0]!.email,
    password: realmFile.users[0]!.credentials[0]!.value,
  },
}

export const realmUrl = () => `${keycloakUrl()}/realms/${realm.name}`

/** Spends a refresh token at Keycloak's token endpoint directly: is it still accepted? */
export async function tryRefreshGrant(
  clientId: string,
  refreshToken: string,
  clientSecret?: string,
): Promise<{ status: number; error?: string }> {
  const form = new URLSearchParams({
    grant_type: 'refresh_token',
    client_id: clientId,
    refresh_token: refreshToken,
  })
  if (clientSecret) form.set('client_secret', clientSecret)
  const response = await fetch(`${realmUrl()}/protocol/openid-connect/token`, { method: 'POST', body: form })
  const body = (await response.json()) as { error?: string }
  return { status: response.status, ...(body.error ? { error: body.error } : {}) }
}
