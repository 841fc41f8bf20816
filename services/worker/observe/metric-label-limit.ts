// Prometheus keeps one time series per label set, so label values taken from the data (agent
// names, the platform's open enumerations) must be bounded. With an allowlist only the listed
// values keep their own label; without one the first `limit` distinct values seen do. Everything
// else shares `other`; an absent or empty value is `unknown`. Per process: two workers may pick
// different first values, which sum() over instances still adds up correctly.
export const otherLabelValue = 'other'
export const unknownLabelValue = 'unknown'
const maxValueLength = 64

export interface LabelLimitOptions {
  /** How many distinct values get their own label when there is no allowlist. */
  limit: number
  /** When not empty: exactly these values get their own label. */
  allowlist?: readonly string[]
  /** Called once, with the first value that had to become `other`. */
  onOverflow?: (value: string) => void
}

export type LabelLimit = (value: string | null | undefined) => string

export function createLabelLimit(options: LabelLimitOptions): LabelLimit {
  const allowed = new Set(options.allowlist ?? [])
  const seen = new Set<string>()
  let overflowReported = false
  const overflow = (value: string) => {
    if (!overflowReported) {
      overflowReported = true
      options.onOverflow?.(value)
    }
    return otherLabelValue
  }
  return (raw) => {
    const value = raw?.trim().slice(0, maxValueLength)
    if (!value) return unknownLabelValue
    if (allowed.size > 0) return allowed.has(value) ? value : overflow(value)
    if (seen.has(value)) return value
    if (seen.size >= options.limit) return overflow(value)
    seen.add(value)
    return value
  }
}

/** `a, b,c` -> ['a', 'b', 'c'] (an environment variable's list). */
export function parseLabelList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
}
