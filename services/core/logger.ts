import { type DestinationStream, type Logger, pino } from 'pino'

export type { Logger }

// Secrets travel in webhook URLs (?token=) and Authorization headers: never let them reach a log line.
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'token',
  'password',
  'secret',
  'client_secret',
  'refresh_token',
  'access_token',
  'id_token',
]

export function createLogger(
  name: string,
  level = process.env.LOG_LEVEL ?? 'info',
  destination?: DestinationStream,
): Logger {
  const options = { name, level, redact: { paths: redactedPaths, censor: '[redacted]' } }
  return destination ? pino(options, destination) : pino(options)
}

/** Drops the query string of a URL for logging: the webhook token travels there. */
export function withoutQuery(url: string): string {
  const at = url.indexOf('?')
  return at === -1 ? url : `${url.slice(0, at)}?[redacted]`
}
