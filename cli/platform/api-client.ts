import { type RefreshContext, refreshTokens, validAccessToken } from '../auth/refresh.ts'
import { ApiError, describeErrorBody } from './platform-errors.ts'

// Calls to the platform API (spec §4.2) with the stored Bearer token: refreshed ahead of expiry,
// and once more after a 401 (spec §7), then the request is sent again.

export type ApiContext = RefreshContext & { baseUrl: string }

export async function callPlatformApi(
  context: ApiContext,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const url = new URL(path, context.baseUrl.endsWith('/') ? context.baseUrl : `${context.baseUrl}/`)
  const send = async (accessToken: string) => {
    try {
      return await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${accessToken}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      })
    } catch (error) {
      const cause =
        (error as Error).cause instanceof Error ? ` (${((error as Error).cause as Error).message})` : ''
      throw new Error(`cannot reach the platform API at ${url.origin}: ${(error as Error).message}${cause}`)
    }
  }

  const accessToken = await validAccessToken(context)
  let response = await send(accessToken)
  if (response.status === 401) {
    await response.body?.cancel()
    const refreshed = await refreshTokens(context, accessToken)
    response = await send(refreshed.access_token)
  }
  const text = await response.text()
  if (!response.ok) {
    throw new ApiError(
      method,
      url.pathname,
      response.status,
      response.statusText,
      describeErrorBody(text, response.headers.get('content-type')),
    )
  }
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    throw new ApiError(method, url.pathname, response.status, response.statusText, 'the answer is not JSON')
  }
}
