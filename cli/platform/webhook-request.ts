import { WebhookRequestError } from './platform-errors.ts'

// The body of POST /api/Webhooks. Its fields are not documented (spec §2.3): `url` is sent, and
// --body-json then --field key=value add fields or override earlier ones.

export function parseFieldAssignment(text: string): [string, string] {
  const equals = text.indexOf('=')
  if (equals <= 0) throw new WebhookRequestError(`--field "${text}" must look like key=value`)
  return [text.slice(0, equals).trim(), text.slice(equals + 1)]
}

export function webhookRequestBody(
  url: string,
  fields: string[] = [],
  bodyJson?: string,
): Record<string, unknown> {
  let extra: Record<string, unknown> = {}
  if (bodyJson !== undefined) {
    let parsed: unknown
    try {
      parsed = JSON.parse(bodyJson)
    } catch (error) {
      throw new WebhookRequestError(`--body-json is not valid JSON: ${(error as Error).message}`)
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new WebhookRequestError('--body-json must be a JSON object')
    }
    extra = parsed as Record<string, unknown>
  }
  const assigned = Object.fromEntries(fields.map(parseFieldAssignment))
  return { url, ...extra, ...assigned }
}

/** The webhook id in the answer (`{ id: <uuid> }`). */
export function webhookIdOf(answer: unknown): string {
  const id = (answer as { id?: unknown } | undefined)?.id
  if (typeof id !== 'string' || id === '') {
    throw new WebhookRequestError('the platform answered POST /api/Webhooks without a webhook id')
  }
  return id
}
