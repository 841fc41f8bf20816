import { discoverOidcClient, type OidcClient } from '../auth/oidc-client.ts'
import { type TokenStore, tokenStore } from '../auth/token-store.ts'
import { configDir, tokenFile, webhookRecordsFile } from '../config/config-paths.ts'
import {
  type Environment,
  loadEnvironmentsConfig,
  resolveClientSecret,
  selectEnvironment,
} from '../config/environments.ts'
import type { ApiContext } from './api-client.ts'

// Everything a command needs for one platform environment: its settings, token store, the
// identity server (discovered on first use) and the files beside them.

export type PlatformSession = ApiContext & {
  environment: Environment
  store: TokenStore
  webhookRecordsFile: string
}

export async function openPlatformSession(
  requestedEnvironment: string | undefined,
): Promise<PlatformSession> {
  const dir = configDir()
  const environment = selectEnvironment(await loadEnvironmentsConfig(dir), requestedEnvironment)
  const store = tokenStore(tokenFile(dir, environment.name))
  let client: Promise<OidcClient> | undefined
  return {
    environment,
    store,
    baseUrl: environment.base_url,
    webhookRecordsFile: webhookRecordsFile(dir, environment.name),
    environmentName: environment.name,
    client: () => {
      client ??= resolveClientSecret(environment).then((secret) => discoverOidcClient(environment, secret))
      return client
    },
  }
}
