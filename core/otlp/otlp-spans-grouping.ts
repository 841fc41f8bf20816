import type { DecodedResourceSpans, DecodedSpan } from './otlp-decoded-request.ts'
import type { OtlpSpan, OtlpSpans } from './otlp-spans.ts'

// A decoded request as the messages of the contract: one per trace id and resource, spans in
// the order they came. A span without a valid trace id or span id (or with a malformed parent
// id) is rejected alone: the rest of the request is accepted and the answer is an OTLP partial
// success naming how many were rejected and why (the client must not retry those).
const traceIdPattern = /^[0-9a-f]{32}$/
const spanIdPattern = /^[0-9a-f]{16}$/
const zeroTraceId = '0'.repeat(32)
const zeroSpanId = '0'.repeat(16)

export interface GroupedSpans {
  messages: OtlpSpans[]
  rejectedSpans: number
  /** Why spans were rejected (empty when none were), for partialSuccess.errorMessage. */
  errorMessage: string
}

/** Why a span cannot be stored, or undefined when it can. */
export function spanProblem(span: DecodedSpan): string | undefined {
  if (!traceIdPattern.test(span.trace_id) || span.trace_id === zeroTraceId)
    return 'trace id is not 16 bytes (32 hex digits) or is all zero'
  if (!spanIdPattern.test(span.span_id) || span.span_id === zeroSpanId)
    return 'span id is not 8 bytes (16 hex digits) or is all zero'
  if (span.parent_span_id !== null && !spanIdPattern.test(span.parent_span_id))
    return 'parent span id is not 8 bytes (16 hex digits)'
  return undefined
}

/** The span without its trace id, which its message carries once. */
function contractSpan(span: DecodedSpan): OtlpSpan {
  const { trace_id: _, ...rest } = span
  // An all-zero parent is how some SDKs write "no parent".
  if (rest.parent_span_id === zeroSpanId) rest.parent_span_id = null
  return rest
}

export function groupOtlpSpans(
  request: readonly DecodedResourceSpans[],
  source: string,
  receivedAt: number,
): GroupedSpans {
  const messages: OtlpSpans[] = []
  const problems = new Map<string, number>()
  let rejectedSpans = 0
  for (const resource of request) {
    const byTrace = new Map<string, OtlpSpans>()
    for (const span of resource.spans) {
      const problem = spanProblem(span)
      if (problem !== undefined) {
        rejectedSpans++
        problems.set(problem, (problems.get(problem) ?? 0) + 1)
        continue
      }
      let message = byTrace.get(span.trace_id)
      if (message === undefined) {
        message = {
          source,
          received_at: receivedAt,
          trace_id: span.trace_id,
          resource_attributes: resource.resource_attributes,
          spans: [],
        }
        byTrace.set(span.trace_id, message)
        messages.push(message)
      }
      message.spans.push(contractSpan(span))
    }
  }
  const errorMessage = [...problems]
    .map(([problem, count]) => `${count} span(s) rejected: ${problem}`)
    .join('; ')
  return { messages, rejectedSpans, errorMessage }
}
