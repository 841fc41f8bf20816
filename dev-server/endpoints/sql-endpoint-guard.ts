import { createHash, timingSafeEqual } from 'node:crypto'

// Who may talk to the dev SQL endpoint: only a local program that holds its token. A browser
// must not be able to: a page on any site can make the browser send requests to 127.0.0.1
// (an <img>, a form) and, with DNS rebinding, read the answers under its own name. So the Host
// must be the loopback name the endpoint serves, cross-site requests are refused, and the token
// travels in a header (a page cannot add one without a CORS preflight, which is never granted).
// Pure: the decisions, for the endpoint to act on.

export interface GuardRefusal {
  status: 401 | 403 | 421
  message: string
}

export interface GuardRequest {
  host: string | undefined
  origin: string | undefined
  secFetchSite: string | undefined
  authorization: string | undefined
}

/** The names a loopback listener on `port` answers to. */
export function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]
}

export function hostAllowed(host: string | undefined, port: number): boolean {
  return host !== undefined && loopbackHosts(port).includes(host.toLowerCase())
}

/** A request a browser made for another site (or an opaque origin): refused, whatever it asks. */
export function crossSite(request: Pick<GuardRequest, 'origin' | 'secFetchSite'>, port: number): boolean {
  const site = request.secFetchSite?.toLowerCase()
  // 'none': typed into the address bar by the user; 'same-origin': the endpoint's own page (none today).
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true
  if (request.origin === undefined) return false
  return !loopbackHosts(port).some((host) => request.origin!.toLowerCase() === `http://${host}`)
}

const digest = (text: string) => createHash('sha256').update(text).digest()

/** `Authorization: Bearer <token>`, compared in constant time. */
export function bearerTokenMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token))
}

/** Why the request is refused (checked in this order), or undefined to answer it. */
export function guardRefusal(request: GuardRequest, port: number, token: string): GuardRefusal | undefined {
  if (!hostAllowed(request.host, port))
    return { status: 421, message: `this endpoint answers only as ${loopbackHosts(port).join(', ')}` }
  if (crossSite(request, port)) return { status: 403, message: 'cross-site requests are refused' }
  if (!bearerTokenMatches(request.authorization, token))
    return {
      status: 401,
      message:
        'missing or wrong token: send "Authorization: Bearer <token>" with the token `npm run dev` keeps in ' +
        'secrets/sql-endpoint-token of its state directory (VA_STATE_DIR, default ./data); `voice-analytics query` reads it itself',
    }
  return undefined
}
