import { z } from 'zod'

// What the token store keeps for one environment, and the expiry maths around it. Pure: the
// clock is a parameter.

export const offlineIdleLimitMs = 30 * 24 * 3600 * 1000 // spec §8: offline refresh token, 30 days idle
export const offlineIdleWarningMs = 3 * 24 * 3600 * 1000
const maxRefreshMarginMs = 60_000

export const storedTokensSchema = z.object({
  version: z.literal(1),
  environment: z.string(),
  client_id: z.string(),
  token_type: z.string(),
  access_token: z.string().min(1),
  access_expires_at: z.iso.datetime(),
  refresh_token: z.string().min(1).optional(),
  refresh_expires_at: z.iso.datetime().optional(),
  offline: z.boolean(),
  id_token: z.string().optional(),
  scope: z.string(),
  obtained_at: z.iso.datetime(),
  subject: z.string().optional(),
  username: z.string().optional(),
  email: z.string().optional(),
})

export type StoredTokens = z.infer<typeof storedTokensSchema>

/** The token endpoint's answer (spec §2.2), as far as the store cares. */
export type TokenResponse = {
  access_token: string
  token_type: string
  expires_in?: number
  refresh_token?: string
  refresh_expires_in?: unknown
  id_token?: string
  scope?: string
}

export type Identity = { subject?: string; username?: string; email?: string }

export function tokensFromResponse(
  response: TokenResponse,
  context: { environment: string; clientId: string; now: Date; requestedScope: string; identity?: Identity },
  previous?: StoredTokens,
): StoredTokens {
  const now = context.now.getTime()
  // A refresh answer may leave out what did not change (scope, refresh token): keep the old one.
  const scope = response.scope ?? previous?.scope ?? context.requestedScope
  const refreshToken = response.refresh_token ?? previous?.refresh_token
  const offline = scope.split(' ').includes('offline_access')
  const reportedRefreshSeconds =
    typeof response.refresh_expires_in === 'number' ? response.refresh_expires_in : 0
  let refreshExpiresAt: string | undefined
  if (reportedRefreshSeconds > 0)
    refreshExpiresAt = new Date(now + reportedRefreshSeconds * 1000).toISOString()
  // Keycloak reports 0 for an offline token: it lives until 30 days without use.
  else if (offline && refreshToken) refreshExpiresAt = new Date(now + offlineIdleLimitMs).toISOString()
  else if (!response.refresh_token) refreshExpiresAt = previous?.refresh_expires_at
  const identity = context.identity ?? previous ?? {}
  return {
    version: 1,
    environment: context.environment,
    client_id: context.clientId,
    token_type: response.token_type,
    access_token: response.access_token,
    // No expires_in: treat the token as short-lived so it is refreshed rather than trusted forever.
    access_expires_at: new Date(now + (response.expires_in ?? 60) * 1000).toISOString(),
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    ...(refreshExpiresAt ? { refresh_expires_at: refreshExpiresAt } : {}),
    offline,
    ...((response.id_token ?? previous?.id_token)
      ? { id_token: response.id_token ?? previous?.id_token }
      : {}),
    scope,
    obtained_at: context.now.toISOString(),
    ...(identity.subject ? { subject: identity.subject } : {}),
    ...(identity.username ? { username: identity.username } : {}),
    ...(identity.email ? { email: identity.email } : {}),
  }
}

/** Refresh ahead of expiry by a fifth of the token's lifetime, at most a minute. */
export function refreshMarginMs(tokens: StoredTokens): number {
  const lifetime = Date.parse(tokens.access_expires_at) - Date.parse(tokens.obtained_at)
  return Math.max(0, Math.min(maxRefreshMarginMs, lifetime / 5))
}

export function accessTokenNeedsRefresh(tokens: StoredTokens, now: Date): boolean {
  return now.getTime() >= Date.parse(tokens.access_expires_at) - refreshMarginMs(tokens)
}

export type TokenStatus = {
  accessExpiresAt: Date
  accessExpired: boolean
  refreshExpiresAt?: Date
  refreshExpired: boolean
  offline: boolean
  warnings: string[]
}

export function tokenStatus(tokens: StoredTokens, now: Date): TokenStatus {
  const accessExpiresAt = new Date(tokens.access_expires_at)
  const refreshExpiresAt = tokens.refresh_expires_at ? new Date(tokens.refresh_expires_at) : undefined
  const refreshExpired = refreshExpiresAt ? refreshExpiresAt.getTime() <= now.getTime() : false
  const warnings: string[] = []
  if (!tokens.refresh_token) warnings.push('no refresh token: log in again when the access token expires')
  else if (refreshExpired)
    warnings.push('the refresh token has expired: run `voice-analytics auth login` again')
  else if (
    tokens.offline &&
    refreshExpiresAt &&
    refreshExpiresAt.getTime() - now.getTime() < offlineIdleWarningMs
  ) {
    warnings.push(
      `the offline refresh token reaches its 30-day idle limit ${formatRelative(refreshExpiresAt, now)}: ` +
        'any command that calls the platform (e.g. `voice-analytics whoami`) renews it',
    )
  }
  if (!tokens.offline) warnings.push('no offline_access: the refresh token ends with the browser session')
  return {
    accessExpiresAt,
    accessExpired: accessExpiresAt.getTime() <= now.getTime(),
    ...(refreshExpiresAt ? { refreshExpiresAt } : {}),
    refreshExpired,
    offline: tokens.offline,
    warnings,
  }
}

/** "in 3h 5m" / "2m 10s ago" */
export function formatRelative(when: Date, now: Date): string {
  const deltaSeconds = Math.round((when.getTime() - now.getTime()) / 1000)
  const abs = Math.abs(deltaSeconds)
  const parts: string[] = []
  const days = Math.floor(abs / 86400)
  const hours = Math.floor((abs % 86400) / 3600)
  const minutes = Math.floor((abs % 3600) / 60)
  const seconds = abs % 60
  if (days) parts.push(`${days}d`)
  if (hours) parts.push(`${hours}h`)
  if (minutes && !days) parts.push(`${minutes}m`)
  if (!days && !hours) parts.push(`${seconds}s`)
  const span = parts.join(' ')
  return deltaSeconds >= 0 ? `in ${span}` : `${span} ago`
}
