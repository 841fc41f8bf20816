import { createHash, timingSafeEqual } from 'node:crypto'

// WEBHOOK_SECRETS = "prod=s3cr3t,staging=other": one pipeline takes several platform
// environments (or a secret being rotated) and tells them apart by the source name.
export interface WebhookSecret {
  source: string
  secret: string
}

const sourceNamePattern = /^[A-Za-z0-9_.-]+$/

/** Parses WEBHOOK_SECRETS; the error names the bad entry by position, never its secret. */
export function parseWebhookSecrets(text: string): WebhookSecret[] {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  const secrets = entries.map((entry, index) => {
    const at = entry.indexOf('=')
    const source = entry.slice(0, at).trim()
    const secret = entry.slice(at + 1).trim()
    if (at <= 0 || !sourceNamePattern.test(source) || secret.length === 0)
      throw new Error(
        `WEBHOOK_SECRETS entry ${index + 1} must look like source=secret (source: letters, digits, _ . -)`,
      )
    if (secret.length < 16)
      throw new Error(
        `WEBHOOK_SECRETS entry ${index + 1} (${source}): the secret must have at least 16 characters`,
      )
    return { source, secret }
  })
  return secrets
}

const digest = (text: string) => createHash('sha256').update(text).digest()

/**
 * Compares a presented token with every secret in constant time, giving the matching source or
 * null. The secrets are hashed once, here, not on every request.
 */
export function webhookSecretMatcher(
  secrets: readonly WebhookSecret[],
): (token: string | undefined) => string | null {
  const digests = secrets.map(({ source, secret }) => ({ source, digest: digest(secret) }))
  return (token) => {
    if (!token) return null
    // Hashing first gives equal-length inputs, so timingSafeEqual leaks neither content nor length.
    const presented = digest(token)
    let matched: string | null = null
    for (const { source, digest: expected } of digests) {
      if (timingSafeEqual(presented, expected) && matched === null) matched = source
    }
    return matched
  }
}
