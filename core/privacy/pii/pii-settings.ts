import type { OtlpSpans } from '../../otlp/otlp-spans.ts'
import { otlpRedactor } from './otlp-attribute-redaction.ts'
import {
  describePiiPolicy,
  keepsEverything,
  needsHmacKey,
  PiiPolicyError,
  parsePiiPolicy,
} from './pii-policy.ts'
import { redactWebhookBody } from './pii-redaction.ts'

// PII_POLICY and PII_HMAC_KEY checked together against the sources of WEBHOOK_SECRETS, once at
// start: the ingress then asks, per request, only "what does this source remove?". A source
// that keeps everything gets undefined, so the default path does no work at all.
export interface PiiRedaction {
  /** The body with this source's policy applied (pure). */
  redact: (body: unknown) => unknown
  /** An OTLP span message with this source's policy applied to its attributes (pure). */
  redactSpans: (message: OtlpSpans) => OtlpSpans
  /** The Kafka header va-pii-policy recording what was removed. */
  header: string
}

export const piiPolicyHeader = 'va-pii-policy'
export const minHmacKeyLength = 32

export function piiRedactions(
  settings: { PII_POLICY: string; PII_HMAC_KEY?: string | undefined },
  sources: readonly string[],
): (source: string) => PiiRedaction | undefined {
  const policies = parsePiiPolicy(settings.PII_POLICY)
  for (const source of policies.keys())
    if (!sources.includes(source))
      throw new PiiPolicyError(
        `PII_POLICY names source "${source}", which WEBHOOK_SECRETS does not have (its sources: ${sources.join(', ')})`,
      )
  const key = settings.PII_HMAC_KEY
  if (needsHmacKey(policies)) {
    // The key's value is never part of a message: only its length is.
    if (!key)
      throw new PiiPolicyError('PII_HMAC_KEY must be set: PII_POLICY hashes phone numbers (phone=hmac)')
    if (key.length < minHmacKeyLength)
      throw new PiiPolicyError(
        `PII_HMAC_KEY must have at least ${minHmacKeyLength} characters (it has ${key.length})`,
      )
  }
  const bySource = new Map<string, PiiRedaction>()
  for (const [source, policy] of policies) {
    if (keepsEverything(policy)) continue
    bySource.set(source, {
      redact: (body) => redactWebhookBody(body, policy, key),
      redactSpans: otlpRedactor(policy, key),
      header: describePiiPolicy(policy),
    })
  }
  return (source) => bySource.get(source)
}
