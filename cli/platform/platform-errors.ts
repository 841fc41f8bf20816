// The errors of talking to the platform: an answer of its API that is not a success, worded with
// what the body tells (the error body shape is not documented, spec §7, so the common ones are
// read), and what the command line asks of it that cannot be sent.

export class ApiError extends Error {
  override name = 'ApiError'
  readonly status: number
  constructor(method: string, path: string, status: number, statusText: string, detail: string | undefined) {
    super(
      `${method} ${path} failed: HTTP ${status}${statusText ? ` ${statusText}` : ''}${detail ? `, ${detail}` : ''}`,
    )
    this.status = status
  }
}

/** --url (and the token it gets) cannot be the webhook's URL (ingress-url.ts). */
export class IngressUrlError extends Error {
  override name = 'IngressUrlError'
}

/** The webhook to register cannot be built from --field and --body-json (webhook-request.ts). */
export class WebhookRequestError extends Error {
  override name = 'WebhookRequestError'
}

/** "code: description" from an OAuth-style, RFC 9457 problem or {code, message} body; else its text. */
export function describeErrorBody(text: string, contentType: string | null): string | undefined {
  const trimmed = text.trim()
  if (!trimmed) return undefined
  if (contentType?.includes('json') || trimmed.startsWith('{')) {
    try {
      const body = JSON.parse(trimmed) as Record<string, unknown>
      const pick = (...keys: string[]) =>
        keys.map((key) => body[key]).find((value) => typeof value === 'string')
      const code = pick('error', 'code', 'title')
      const description = pick('error_description', 'message', 'detail', 'description')
      const parts = [code, description].filter((part): part is string => part !== undefined && part !== '')
      if (parts.length > 0) return parts.join(': ')
    } catch {
      // not JSON after all: fall through to the text
    }
  }
  const plain = trimmed
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return plain.length > 200 ? `${plain.slice(0, 200)}…` : plain
}
