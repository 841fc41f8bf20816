// What a startup check found, as the user reads it: the variable to look at and a message that
// says what answered and what to try. `retriable`: the service's own retries may get past it
// (a server still starting); otherwise retrying cannot help (a wrong URL, a locked directory).
export interface Diagnosis {
  variable: string
  retriable: boolean
  message: string
}

/** A URL as it may be shown: no user, no password, no query string (tokens travel there). */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url)
    parsed.username = ''
    parsed.password = ''
    parsed.search = ''
    parsed.hash = ''
    return parsed.href.replace(/\/$/, '')
  } catch {
    return '(not a URL)'
  }
}

/** Why a connection failed, in words, from a Node error code. */
export function describeNetworkFailure(code: string | undefined, message: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused: nothing listens there'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found'
    case 'ETIMEDOUT':
    case 'TIMEOUT':
      return 'no answer in time'
    case 'ECONNRESET':
      return 'the connection was reset'
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable'
    default:
      return message
  }
}
