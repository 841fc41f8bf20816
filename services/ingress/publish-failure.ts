import { describeKafkaError, isMessageTooLarge } from '../../core/kafka/kafka-errors.ts'
import {
  BatchRefusedBySizeError,
  HttpError,
  MessageTooLargeError,
  PublishTimeoutError,
  QueueFullError,
  unavailable,
} from './ingress-errors.ts'

// A publish that failed, as the answer the platform gets: nearly always 503 + Retry-After
// (it retries; what was refused is never sent later by the ingress, though a broker that died
// before acknowledging may hold it: see batching-producer.ts); a message
// larger than Kafka takes is 413 for that event alone, not a retry loop.
/** A warning under a key naming its kind (the caller writes one line per kind per interval). */
export type KindWarning = (kind: string, fields: Record<string, unknown>, message: string) => void

export function publishFailure(error: unknown, warn: KindWarning): HttpError {
  if (error instanceof MessageTooLargeError || isMessageTooLarge(error))
    return new HttpError(413, 'payload_too_large', 'Kafka refuses a message this large')
  if (error instanceof QueueFullError)
    return unavailable('the ingress is at its queue limit while Kafka catches up; retry later')
  warn(
    `publish failed: ${error instanceof Error ? error.name : typeof error}`,
    { err: describeKafkaError(error) },
    'publish to Kafka failed',
  )
  if (error instanceof PublishTimeoutError)
    return unavailable('Kafka did not take the event in time; retry later')
  if (error instanceof BatchRefusedBySizeError) return unavailable('Kafka refused a batch by size; retry')
  return unavailable('Kafka is not reachable; retry later')
}
