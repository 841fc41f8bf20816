import { isMessageTooLarge } from '../../../core/kafka/kafka-errors.ts'
import {
  type DeadLetterRecord,
  deadLetterMessage,
  type Poison,
  type ReducedForm,
  reducedDeadLetter,
} from './dead-letter.ts'

// Sends poison to the dead-letter topic without ever blocking the partition on a message the
// topic refuses for its size: the batch's dead letters go in one send; refused as too large, one
// by one; one that alone is too large goes reduced (its value cut to the topic's
// max.message.bytes, else only a reference to the original) — or, when even that is refused, is
// logged with where the original is and counted. Any other failure is the caller's to retry.
export type OversizedOutcome = ReducedForm | 'none'

export interface DeadLetterPublishDeps {
  /** One send to the DLQ, acknowledged by every in-sync replica. */
  send: (records: DeadLetterRecord[]) => Promise<void>
  /** Retries an operation until it succeeds or `giveUp` says no retry can help. */
  retry: (operation: () => Promise<void>, giveUp: (error: unknown) => boolean) => Promise<void>
  /** The DLQ topic's max.message.bytes (undefined: unknown, Kafka's default is assumed). */
  maxMessageBytes: () => Promise<number | undefined>
  onOversized: (poison: Poison, outcome: OversizedOutcome, error: string) => void
}

const tooLargeTypes = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE'])
const kafkaDefaultMaxMessageBytes = 1_048_588

/**
 * Kafka refused the records for their size: @platformatic/kafka (the worker's producer) aggregates
 * the protocol error in its errors; KafkaJS wraps it in causes.
 */
export function isTooLarge(error: unknown): boolean {
  if (isMessageTooLarge(error)) return true
  const seen = new Set<unknown>()
  const queue = [error]
  while (queue.length > 0) {
    const current = queue.shift() as { type?: unknown; cause?: unknown; errors?: unknown } | undefined
    if (!current || typeof current !== 'object' || seen.has(current)) continue
    seen.add(current)
    if (typeof current.type === 'string' && tooLargeTypes.has(current.type)) return true
    queue.push(current.cause)
    if (Array.isArray(current.errors)) queue.push(...current.errors)
  }
  return false
}

async function sent(deps: DeadLetterPublishDeps, records: DeadLetterRecord[]): Promise<boolean> {
  try {
    await deps.retry(() => deps.send(records), isTooLarge)
    return true
  } catch (error) {
    if (isTooLarge(error)) return false
    throw error
  }
}

export async function publishDeadLetters(
  poison: readonly Poison[],
  failedAt: Date,
  deps: DeadLetterPublishDeps,
): Promise<void> {
  if (poison.length === 0) return
  if (
    await sent(
      deps,
      poison.map((item) => deadLetterMessage(item, failedAt)),
    )
  )
    return
  for (const item of poison) {
    if (poison.length > 1 && (await sent(deps, [deadLetterMessage(item, failedAt)]))) continue
    const limit = (await deps.maxMessageBytes().catch(() => undefined)) ?? kafkaDefaultMaxMessageBytes
    let outcome: OversizedOutcome = 'none'
    for (const form of ['truncated', 'reference'] as const)
      if (await sent(deps, [reducedDeadLetter(item, failedAt, limit, form)])) {
        outcome = form
        break
      }
    deps.onOversized(item, outcome, `dead letter larger than the DLQ topic's max.message.bytes (${limit})`)
  }
}
