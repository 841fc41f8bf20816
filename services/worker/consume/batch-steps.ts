import type { ConsumedMessage } from '../../../core/kafka/partition-batches.ts'
import { conversationRows, type Delivery } from '../transform/conversation-rows.ts'
import { defaultTurnTaking, type TurnTakingSettings } from '../transform/turn-taking.ts'
import type { MessageRows } from '../write/batch-rows.ts'
import type { Rejected } from '../write/batch-writer.ts'
import type { Decoded, MessageOutcome, Poisoned, Received, Stored, Transformed } from './message-outcome.ts'

// The pure parts of the steps of a partition batch (the I/O — registry, ClickHouse, DLQ, commit —
// is batch-processor.ts's): each maps the outcomes of the step before to its own, one per message,
// in order, poison passed through untouched (message-outcome.ts).

/** The batch's messages, before the first step. */
export function received(topic: string, partition: number, messages: readonly ConsumedMessage[]): Received[] {
  return messages.map((message) => ({ topic, partition, message }))
}

/** Rows step: the table rows of each decoded message; a record the transform refuses is poison. */
export function transformed(
  outcomes: readonly (Decoded | Poisoned)[],
  turnTaking: TurnTakingSettings = defaultTurnTaking,
): Array<Transformed | Poisoned> {
  return outcomes.map((outcome) => {
    if (outcome.kind === 'poison') return outcome
    const { topic, partition, message } = outcome
    const delivery: Delivery = {
      topic,
      partition,
      offset: Number(message.offset),
      timestampMs: Number(message.timestamp),
    }
    try {
      const entry: MessageRows = {
        delivery,
        message,
        rows: conversationRows(outcome.record, delivery, turnTaking),
      }
      return { kind: 'transformed', topic, partition, message, entry }
    } catch (error) {
      return poisoned(outcome, 'transform_error', (error as Error).message)
    }
  })
}

/** Write step, before: the rows to hand to the batch writer (kept per message). */
export function toWrite(outcomes: readonly (Transformed | Poisoned)[]): MessageRows[] {
  return outcomes.flatMap((outcome) => (outcome.kind === 'transformed' ? [outcome.entry] : []))
}

/** Write step, after: stored, unless ClickHouse refused that message's rows (then poison). */
export function written(
  outcomes: readonly (Transformed | Poisoned)[],
  rejected: readonly Rejected[],
): Array<Stored | Poisoned> {
  const refused = new Map(rejected.map((item) => [item.entry, item.error]))
  return outcomes.map((outcome) => {
    if (outcome.kind === 'poison') return outcome
    const error = refused.get(outcome.entry)
    if (error !== undefined) return poisoned(outcome, 'rejected_by_clickhouse', error)
    const { topic, partition, message, entry } = outcome
    return { kind: 'stored', topic, partition, message, entry }
  })
}

/** Dead-letter step: the messages to send to the DLQ, in offset order. */
export function deadLetters(outcomes: readonly MessageOutcome[]): Poisoned[] {
  return outcomes.filter((outcome): outcome is Poisoned => outcome.kind === 'poison')
}

/** Commit step: how many messages of the batch were stored and how many dead-lettered. */
export function outcomeCounts(outcomes: readonly (Stored | Poisoned)[]): {
  stored: number
  deadLettered: number
} {
  const deadLettered = deadLetters(outcomes).length
  return { stored: outcomes.length - deadLettered, deadLettered }
}

function poisoned(outcome: Received, reason: Poisoned['reason'], error: string): Poisoned {
  const { topic, partition, message } = outcome
  return { kind: 'poison', topic, partition, message, reason, error }
}
