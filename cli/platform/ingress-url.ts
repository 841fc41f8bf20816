import { parseWebhookSecrets } from '../../core/secrets/webhook-secrets.ts'
import { isLoopbackHost } from '../config/loopback.ts'
import { IngressUrlError } from './platform-errors.ts'

// The URL the platform should POST to: the ingress route (contract: /webhooks/conversation-complete)
// with the shared secret of one source in ?token= (the platform documents no signature).

export const ingressPath = '/webhooks/conversation-complete'

export function ingressWebhookUrl(
  base: string,
  options: { webhookSecrets?: string; source?: string } = {},
): string {
  let url: URL
  try {
    url = new URL(base)
  } catch {
    throw new IngressUrlError(`--url "${base}" is not a URL`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new IngressUrlError('--url must be http(s)')
  if (url.pathname === '/' || url.pathname === '') url.pathname = ingressPath
  if (options.source === undefined) return url.toString()
  if (url.searchParams.has('token'))
    throw new IngressUrlError('--url already has a token; leave out --token-from')
  const secrets = parseWebhookSecrets(options.webhookSecrets ?? '')
  const match = secrets.find((entry) => entry.source === options.source)
  if (!match) {
    const known = secrets.map((entry) => entry.source).join(', ')
    throw new IngressUrlError(
      `WEBHOOK_SECRETS has no source "${options.source}"${known ? ` (it has: ${known})` : ' (it is empty)'}`,
    )
  }
  url.searchParams.set('token', match.secret)
  return url.toString()
}

/**
 * The URL the platform will call carries the ingress token in its query: over plain http it would
 * travel in clear text. http:// only with --insecure, and --insecure only for a loopback ingress
 * (local testing). Other schemes are left to the platform to judge.
 */
export function checkIngressTransport(url: string, insecure: boolean): void {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return
  }
  if (parsed.protocol !== 'http:') return
  const where = `${parsed.protocol}//${parsed.host}`
  if (!insecure)
    throw new IngressUrlError(
      `the webhook URL ${where} uses http://: the ingress token would travel in clear text; ` +
        'use https://, or --insecure for an ingress on this machine (127.0.0.1, localhost, [::1])',
    )
  if (!isLoopbackHost(parsed.hostname))
    throw new IngressUrlError(
      `--insecure is only for a loopback ingress (127.0.0.1, localhost, [::1]), not ${parsed.hostname}: use https://`,
    )
}
