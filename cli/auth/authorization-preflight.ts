import { AuthError } from './auth-errors.ts'

// Keycloak answers an authorization request it refuses outright (unknown client, unregistered
// redirect URI) with an error page in the browser, never with a callback, so the CLI would only
// time out. Asking once ourselves, before the browser does, turns that into a clear message.

/** The message of Keycloak's error page (`<div id="kc-error-message"><p ...>…</p>`), if any. */
export function errorPageMessage(html: string): string | undefined {
  const block = /id="kc-error-message"[\s\S]*?<p[^>]*>([\s\S]*?)<\/p>/i.exec(html)
  const text = block?.[1] ?? /<title>([\s\S]*?)<\/title>/i.exec(html)?.[1]
  const cleaned = text
    ?.replace(/<[^>]+>/g, '')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim()
  return cleaned || undefined
}

export async function preflightAuthorizationRequest(url: URL, redirectUri: string): Promise<void> {
  let response: Response
  try {
    response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) })
  } catch (error) {
    throw new AuthError(`cannot reach the identity server at ${url.origin}: ${(error as Error).message}`)
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel()
    const location = response.headers.get('location')
    const target = location ? new URL(location, url) : undefined
    const error = target?.searchParams.get('error')
    // An error sent to our own redirect URI: the request reached the client, but was refused.
    if (target && error && `${target.origin}${target.pathname}` === redirectUri) {
      const description = target.searchParams.get('error_description')
      throw new AuthError(
        `the identity server refused the login request: ${error}${description ? `: ${description}` : ''}`,
      )
    }
    return
  }
  if (response.ok) {
    await response.body?.cancel()
    return
  }
  const message = errorPageMessage(await response.text()) ?? response.statusText
  const hint = /redirect_uri/i.test(message)
    ? ` (the redirect URI ${redirectUri} must be registered exactly, without wildcards, for client ` +
      `"${url.searchParams.get('client_id')}")`
    : ''
  throw new AuthError(
    `the identity server refused the login request: HTTP ${response.status}, ${message}${hint}`,
  )
}
