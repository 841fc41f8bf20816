// What /readyz says, and whether the ingress is ready, without ever echoing a credential: a URL
// such as http://user:pass@registry/... is named by its host only, and error texts are stripped
// of any user:password@ they carry (fetch, for one, quotes the whole URL in its errors).
// Ready means an event can be taken now: Kafka answers and the schemas (the conversation's and
// the OTLP spans') are registered. The
// registry itself is reported but not required once the schema is cached: encoding needs it
// no more, and a registry restart must not take the ingress out of a load balancer.

/** A URL's host (and port), for messages: never its user, password, path or query. */
export function urlHost(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'an unparsable URL'
  }
}

/** Any text with the user:password@ part of the URLs in it removed. */
export function withoutCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1')
}

/** An error as a short, credential-free reason: its code when it has one, else its message. */
export function errorReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } })?.cause
  if (typeof cause?.code === 'string') return cause.code
  const code = (error as { code?: unknown })?.code
  if (typeof code === 'string') return code
  return withoutCredentials(error instanceof Error ? error.message : String(error))
}

/** A URL with its user and password moved into a Basic Authorization header (fetch refuses them in URLs). */
export function requestWithCredentials(url: string): { url: string; headers: Record<string, string> } {
  const parsed = new URL(url)
  if (!parsed.username && !parsed.password) return { url, headers: {} }
  const user = decodeURIComponent(parsed.username)
  const password = decodeURIComponent(parsed.password)
  parsed.username = ''
  parsed.password = ''
  return {
    url: parsed.toString(),
    headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
  }
}

export interface ReadinessInputs {
  kafka: { ok: true } | { ok: false; reason: string }
  registry: { ok: true } | { ok: false; reason: string }
  registryHost: string
  schemaId: number | undefined
  /** The OTLP span schema's id (POST /v1/traces), once registered. */
  spanSchemaId: number | undefined
}

const registration = (schemaId: number | undefined) =>
  schemaId === undefined ? 'not registered yet' : `registered (id ${schemaId})`

export function readiness(inputs: ReadinessInputs): { ready: boolean; checks: Record<string, string> } {
  const schemasRegistered = inputs.schemaId !== undefined && inputs.spanSchemaId !== undefined
  const checks: Record<string, string> = {
    kafka: inputs.kafka.ok ? 'ok' : `unreachable: ${withoutCredentials(inputs.kafka.reason)}`,
    registry: inputs.registry.ok
      ? 'ok'
      : `${inputs.registryHost}: ${withoutCredentials(inputs.registry.reason)}${schemasRegistered ? ' (schema cached: not needed)' : ''}`,
    schema: registration(inputs.schemaId),
    span_schema: registration(inputs.spanSchemaId),
  }
  return { ready: inputs.kafka.ok && schemasRegistered, checks }
}
