import type { Logger } from '../core/logger.ts'
import { PublishTimeoutError } from './batching-producer.ts'
import { HttpError, unavailable } from './ingress-errors.ts'

// A publish that failed, as the answer the platform gets: nearly always 503 + Retry-After
// (it retries, nothing is lost); a message Kafka will never take is 413, not a retry loop.
export function publishFailure(error: unknown, logger: Logger): HttpError {
  const type = (error as { type?: unknown })?.type
  if (type === 'MESSAGE_TOO_LARGE' || type === 'RECORD_LIST_TOO_LARGE')
    return new HttpError(413, 'payload_too_large', 'Kafka refuses a message this large')
  logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'publish to Kafka failed')
  if (error instanceof PublishTimeoutError)
    return unavailable('Kafka did not acknowledge in time; retry later')
  return unavailable('Kafka is not reachable; retry later')
}
