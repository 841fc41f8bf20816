// PII_POLICY = "prod:phone=hmac,content=mask;staging:content=drop": what the ingress removes
// from each source's events before they reach Kafka. Pure parsing; a source not named, and a
// field not named, keep everything (the behaviour before PII controls existed).
export type PhoneMode = 'keep' | 'hmac' | 'drop'
export type ContentMode = 'keep' | 'mask' | 'drop'
export type KeepOrDrop = 'keep' | 'drop'
export type KeepOrMask = 'keep' | 'mask'

export interface PiiPolicy {
  /** data.from_number and data.to_number. */
  phone: PhoneMode
  /** history[].content (the transcript) and history[].instructions (the agent's instructions): free text. */
  content: ContentMode
  /** data.audio_url (the recording). */
  audio_url: KeepOrDrop
  /** history[].tool_arguments_json and history[].tool_output. */
  tools: KeepOrDrop
  /**
   * data.error_message and data.room_metadata.error: masked like content, never dropped, so that
   * "this call had an error" (failure rates, alerts) stays true.
   */
  errors: KeepOrMask
  /** data.url_parameters (the web call's query parameters): each value masked, or the whole map dropped. */
  url_parameters: ContentMode
  /** Fields the event schema does not know, on any object (stored as extra_fields_json). */
  unknown_fields: KeepOrDrop
  /**
   * data.test_eval_result.reasons: the test judge's free text about the call, which may quote the
   * caller. The verdict (success, completion_reason) always stays, so pass rates stay right.
   */
  test_reasons: ContentMode
}

export const keepEverything: PiiPolicy = Object.freeze({
  phone: 'keep',
  content: 'keep',
  audio_url: 'keep',
  tools: 'keep',
  errors: 'keep',
  url_parameters: 'keep',
  unknown_fields: 'keep',
  test_reasons: 'keep',
})

const modes: { [Field in keyof PiiPolicy]: readonly PiiPolicy[Field][] } = {
  phone: ['keep', 'hmac', 'drop'],
  content: ['keep', 'mask', 'drop'],
  audio_url: ['keep', 'drop'],
  tools: ['keep', 'drop'],
  errors: ['keep', 'mask'],
  url_parameters: ['keep', 'mask', 'drop'],
  unknown_fields: ['keep', 'drop'],
  test_reasons: ['keep', 'mask', 'drop'],
}
const fields = Object.keys(modes) as (keyof PiiPolicy)[]

export class PiiPolicyError extends Error {
  override name = 'PiiPolicyError'
}

/** Parses PII_POLICY into a policy per source; every error names the variable and the entry. */
export function parsePiiPolicy(text: string): Map<string, PiiPolicy> {
  const policies = new Map<string, PiiPolicy>()
  const entries = text
    .split(';')
    .map((entry) => entry.trim())
    .filter(Boolean)
  for (const [index, entry] of entries.entries()) {
    const where = `PII_POLICY entry ${index + 1}`
    const colon = entry.indexOf(':')
    const source = entry.slice(0, colon).trim()
    // Whether the source exists is checked against WEBHOOK_SECRETS (pii-settings.ts).
    if (colon <= 0 || source === '')
      throw new PiiPolicyError(`${where} must look like source:field=mode,..., got "${entry}"`)
    if (policies.has(source)) throw new PiiPolicyError(`${where}: source "${source}" is named twice`)
    const policy: PiiPolicy = { ...keepEverything }
    const seen = new Set<string>()
    for (const setting of entry
      .slice(colon + 1)
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)) {
      const [field, mode, ...rest] = setting.split('=').map((part) => part.trim())
      if (!fields.includes(field as keyof PiiPolicy))
        throw new PiiPolicyError(
          `${where} (${source}): unknown field "${field}"; the fields are ${fields.join(', ')}`,
        )
      const key = field as keyof PiiPolicy
      if (seen.has(key)) throw new PiiPolicyError(`${where} (${source}): ${key} is set twice`)
      seen.add(key)
      if (rest.length > 0 || mode === undefined || !(modes[key] as readonly string[]).includes(mode))
        throw new PiiPolicyError(
          `${where} (${source}): ${key} must be one of ${modes[key].join(', ')}, got "${setting}"`,
        )
      ;(policy as unknown as Record<string, string>)[key] = mode
    }
    policies.set(source, Object.freeze(policy))
  }
  return policies
}

export function keepsEverything(policy: PiiPolicy): boolean {
  return fields.every((field) => policy[field] === 'keep')
}

/** The policy as the Kafka header va-pii-policy records it, e.g. phone=hmac,content=mask,audio_url=keep,tools=keep,... (every field). */
export function describePiiPolicy(policy: PiiPolicy): string {
  return fields.map((field) => `${field}=${policy[field]}`).join(',')
}

/** Whether any policy hashes phone numbers (then PII_HMAC_KEY is required). */
export function needsHmacKey(policies: ReadonlyMap<string, PiiPolicy>): boolean {
  return [...policies.values()].some((policy) => policy.phone === 'hmac')
}
