import { type DestinationStream, type Logger, pino } from 'pino'
import pretty from 'pino-pretty'

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

export type LogFormat = 'json' | 'pretty'

/** LOG_FORMAT (json | pretty | auto, default auto): JSON for collectors, readable lines on a terminal. */
export function chooseLogFormat(setting: string | undefined, stdoutIsTerminal: boolean): LogFormat {
  if (setting === 'json' || setting === 'pretty') return setting
  return stdoutIsTerminal ? 'pretty' : 'json'
}

export function createLogger(
  name: string,
  level = process.env.LOG_LEVEL ?? 'info',
  destination?: DestinationStream,
): Logger {
  const options = { name, level, redact: { paths: redactedPaths, censor: '[redacted]' } }
  if (destination) return pino(options, destination)
  if (chooseLogFormat(process.env.LOG_FORMAT, process.stdout.isTTY === true) === 'json') return pino(options)
  // In-process and synchronous (no transport thread): lines appear in order with the process's own output.
  const lines = pretty({
    sync: true,
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  })
  return pino(options, lines)
}

/** Drops the query string of a URL for logging: the webhook token travels there. */
export function withoutQuery(url: string): string {
  const at = url.indexOf('?')
  return at === -1 ? url : `${url.slice(0, at)}?[redacted]`
}
