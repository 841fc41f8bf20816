import { describe, expect, it } from 'vitest'
import {
  accessTokenNeedsRefresh,
  formatRelative,
  offlineIdleLimitMs,
  refreshMarginMs,
  type StoredTokens,
  tokenStatus,
  tokensFromResponse,
} from './token-set.ts'

const now = new Date('2026-01-01T00:00:00Z')
const context = { environment: 'prod', clientId: 'cli', now, requestedScope: 'openid offline_access' }
const response = {
  access_token: 'at1',
  token_type: 'Bearer',
  expires_in: 86400,
  refresh_token: 'rt1',
  refresh_expires_in: 0,
  id_token: 'id1',
  scope: 'openid profile email offline_access',
}

describe('tokensFromResponse', () => {
  it('records expiry times; an offline token gets the 30-day idle limit when none is reported', () => {
    const tokens = tokensFromResponse(response, { ...context, identity: { subject: 's', username: 'alice' } })
    expect(tokens).toMatchObject({
      access_token: 'at1',
      access_expires_at: '2026-01-02T00:00:00.000Z',
      refresh_token: 'rt1',
      refresh_expires_at: new Date(now.getTime() + offlineIdleLimitMs).toISOString(),
      offline: true,
      subject: 's',
      username: 'alice',
    })
  })

  it('uses a reported refresh expiry, and a session-bound token is not offline', () => {
    const tokens = tokensFromResponse({ ...response, scope: 'openid', refresh_expires_in: 1800 }, context)
    expect(tokens.offline).toBe(false)
    expect(tokens.refresh_expires_at).toBe('2026-01-01T00:30:00.000Z')
  })

  it('keeps what a refresh answer leaves out: refresh token, scope, identity', () => {
    const first = tokensFromResponse(response, { ...context, identity: { username: 'alice' } })
    const later = new Date(now.getTime() + 3600_000)
    const refreshed = tokensFromResponse(
      { access_token: 'at2', token_type: 'Bearer', expires_in: 60 },
      { ...context, now: later },
      first,
    )
    expect(refreshed).toMatchObject({
      access_token: 'at2',
      refresh_token: 'rt1',
      scope: response.scope,
      username: 'alice',
      // using an offline token restarts its idle clock
      refresh_expires_at: new Date(later.getTime() + offlineIdleLimitMs).toISOString(),
    })
    const online = tokensFromResponse({ ...response, scope: 'openid', refresh_expires_in: 1800 }, context)
    const kept = tokensFromResponse(
      { access_token: 'at4', token_type: 'Bearer' },
      { ...context, now: later },
      online,
    )
    expect(kept.refresh_expires_at).toBe(online.refresh_expires_at)
    const rotated = tokensFromResponse(
      { ...response, access_token: 'at3', refresh_token: 'rt2' },
      { ...context, now: later },
      first,
    )
    expect(rotated.refresh_token).toBe('rt2')
    expect(rotated.refresh_expires_at).toBe(new Date(later.getTime() + offlineIdleLimitMs).toISOString())
  })
})

describe('refresh timing', () => {
  const tokensLiving = (seconds: number): StoredTokens =>
    tokensFromResponse({ ...response, expires_in: seconds }, context)

  it('refreshes a fifth of the lifetime early, at most a minute', () => {
    expect(refreshMarginMs(tokensLiving(15))).toBe(3_000)
    expect(refreshMarginMs(tokensLiving(86400))).toBe(60_000)
  })

  it('needs a refresh from expiry minus the margin on', () => {
    const tokens = tokensLiving(15)
    expect(accessTokenNeedsRefresh(tokens, new Date(now.getTime() + 11_999))).toBe(false)
    expect(accessTokenNeedsRefresh(tokens, new Date(now.getTime() + 12_000))).toBe(true)
    expect(accessTokenNeedsRefresh(tokens, new Date(now.getTime() + 20_000))).toBe(true)
  })
})

describe('tokenStatus', () => {
  const tokens = tokensFromResponse(response, context)

  it('warns when an offline token nears its 30-day idle limit, not before', () => {
    const day = 24 * 3600_000
    expect(tokenStatus(tokens, new Date(now.getTime() + 20 * day)).warnings).toEqual([])
    const late = tokenStatus(tokens, new Date(now.getTime() + 28 * day))
    expect(late.warnings).toEqual([expect.stringMatching(/reaches its 30-day idle limit in 2d/)])
    const after = tokenStatus(tokens, new Date(now.getTime() + 31 * day))
    expect(after.refreshExpired).toBe(true)
    expect(after.warnings).toEqual([expect.stringContaining('run `voice-analytics auth login` again')])
  })

  it('says when the refresh token is tied to the browser session, or missing', () => {
    const online = tokensFromResponse({ ...response, scope: 'openid', refresh_expires_in: 1800 }, context)
    expect(tokenStatus(online, now).warnings).toEqual([expect.stringContaining('no offline_access')])
    const { refresh_token: _, ...withoutRefresh } = tokens
    expect(tokenStatus(withoutRefresh, now).warnings[0]).toMatch(/no refresh token/)
  })

  it('formats relative times', () => {
    expect(formatRelative(new Date(now.getTime() + 14_000), now)).toBe('in 14s')
    expect(formatRelative(new Date(now.getTime() - 130_000), now)).toBe('2m 10s ago')
    expect(formatRelative(new Date(now.getTime() + 30 * 86400_000 - 60_000), now)).toBe('in 29d 23h')
  })
})
