// What a Kafka error is, for decisions (413 against 503, a topic someone else created): the
// error shapes of both clients, kafkajs's `type` and @platformatic/kafka's aggregated causes.

/** Whether a @platformatic/kafka error, or one of the errors it aggregates, is the broker's error `id`. */
export function hasBrokerError(error: unknown, id: string): boolean {
  const found = (error as { findBy?: (property: string, value: unknown) => unknown })?.findBy
  return typeof found === 'function' && found.call(error, 'apiId', id) != null
}

/** Kafka refused a message, or a batch of them, as larger than the topic takes. */
export function isMessageTooLarge(error: unknown): boolean {
  const type = (error as { type?: unknown })?.type
  if (type === 'MESSAGE_TOO_LARGE' || type === 'RECORD_LIST_TOO_LARGE') return true
  return hasBrokerError(error, 'MESSAGE_TOO_LARGE') || hasBrokerError(error, 'RECORD_LIST_TOO_LARGE')
}

/**
 * An error for a log line: its own message and, when it wraps others (@platformatic/kafka
 * aggregates every attempt and broker), the innermost cause of its last one — where the reason
 * is ("Listing topics failed. (connect ECONNREFUSED 127.0.0.1:9092)"), not four levels of retries.
 */
export function describeKafkaError(error: unknown): string {
  const message = (value: unknown) => (value instanceof Error ? value.message : String(value))
  let innermost: unknown = error
  for (let depth = 0; depth < 10; depth++) {
    const errors = (innermost as { errors?: unknown })?.errors
    const next = Array.isArray(errors) && errors.length > 0 ? errors.at(-1) : (innermost as Error)?.cause
    if (next === undefined || next === null || next === innermost) break
    innermost = next
  }
  return innermost === error ? message(error) : `${message(error)} (${message(innermost)})`
}
