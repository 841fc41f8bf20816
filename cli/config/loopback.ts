// Loopback addresses: the only hosts a CLI may reach over plain http, and the only hosts its
// login callback listener (RFC 8252 §7.3) may use.

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])

export function isLoopbackHost(hostname: string): boolean {
  return loopbackHosts.has(hostname.toLowerCase())
}

/** https, or http to a loopback address (local test servers): nothing else carries tokens. */
export function isSecureOrLoopback(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))
}

export type LoopbackRedirect = { uri: string; host: string; port: number; path: string }

/** The registered redirect URI the login listener answers on; it must be reachable as written. */
export function parseLoopbackRedirectUri(uri: string): LoopbackRedirect {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    throw new Error(`redirect URI "${uri}" is not a URL`)
  }
  const problem = (why: string) =>
    new Error(`redirect URI "${uri}" ${why}: the CLI listens on it, e.g. http://127.0.0.1:53682/callback`)
  if (url.protocol !== 'http:') throw problem('must use http')
  if (!isLoopbackHost(url.hostname)) throw problem('must point to a loopback address')
  if (url.port === '') throw problem('must name a port')
  if (url.search !== '' || url.hash !== '') throw problem('must not have a query or fragment')
  const host = url.hostname === '[::1]' ? '::1' : url.hostname
  return { uri, host, port: Number(url.port), path: url.pathname }
}
