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
