// Kafka topic names (contract): the event topic and where the events that do not fit it go.
export const topics = {
  conversationComplete: 'voice.conversation-complete.v1',
  quarantine: 'voice.conversation-complete.quarantine.v1',
  otherEvents: 'voice.other-events.v1',
  deadLetter: 'voice.conversation-complete.dlq.v1',
  /** OTLP spans, one message per trace and resource of a request, keyed by trace id (core/otlp/otlp-spans.ts). */
  otlpSpans: 'voice.otlp-spans.v1',
  /** Spans the assembler could not turn into a conversation (late past its window, no mapping, undecodable). */
  otlpSpansDeadLetter: 'voice.otlp-spans.dlq.v1',
} as const

export const conversationCompleteSubject = `${topics.conversationComplete}-value`
export const otlpSpansSubject = `${topics.otlpSpans}-value`

/** INGRESS_BODY_LIMIT_BYTES's default: the largest webhook body the ingress takes. */
export const defaultBodyLimitBytes = 16 * 1024 * 1024

/**
 * The max.message.bytes the pipeline's topics are created with, for a given body limit: every
 * body the ingress accepts fits, with room for its headers (a quarantined body carries its
 * problems) and for the worker's error headers when it is dead-lettered.
 */
export function topicMessageLimit(bodyLimitBytes: number): number {
  return bodyLimitBytes + 1024 * 1024
}
