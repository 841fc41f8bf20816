import { createHash } from 'node:crypto'
import { headersBytes } from '../../../core/kafka/message-headers.ts'
import type { ConsumedHeaders, ConsumedMessage } from '../../../core/kafka/partition-batches.ts'

// A message the worker cannot store, as it goes to the dead-letter topic: the original key,
// value bytes and headers untouched, plus where it came from and what went wrong, so it can be
// inspected, fixed and replayed. One larger than the DLQ topic takes (max.message.bytes) goes
// reduced instead: the value cut to fit, or only a reference to the original (its topic,
// partition and offset, its size and SHA-256), so the partition is never blocked by it.
export type PoisonReason =
  | 'empty_value'
  | 'not_avro'
  | 'unknown_schema'
  | 'undecodable'
  | 'transform_error'
  | 'rejected_by_clickhouse'

export interface Poison {
  message: ConsumedMessage
  topic: string
  partition: number
  reason: PoisonReason
  error: string
}

export const maxErrorHeaderLength = 2000

export function deadLetterMessage(
  poison: Poison,
  failedAt: Date,
): { key: Buffer | null; value: Buffer | null; headers: ConsumedHeaders } {
  const { message } = poison
  return {
    key: message.key,
    value: message.value,
    headers: {
      ...message.headers,
      'va-error-reason': poison.reason,
      'va-error-message': poison.error.slice(0, maxErrorHeaderLength),
      'va-original-topic': poison.topic,
      'va-original-partition': String(poison.partition),
      'va-original-offset': message.offset,
      'va-original-timestamp': message.timestamp,
      'va-failed-at': failedAt.toISOString(),
    },
  }
}

export type DeadLetterRecord = ReturnType<typeof deadLetterMessage>
export type ReducedForm = 'truncated' | 'reference'

/** Room for Kafka's record batch and record framing beside key, value and headers. */
const framingBytes = 512
const maxReferenceKeyBytes = 1024
/** Kafka's framing of one header (its varint lengths). */
const headerFramingBytes = 8

/**
 * The dead letter of `poison` made to fit `maxBytes` (the DLQ topic's max.message.bytes):
 * 'truncated' keeps the key, the original headers and as much of the value as fits;
 * 'reference' keeps only the error and where the original is (no value, no original headers).
 */
export function reducedDeadLetter(
  poison: Poison,
  failedAt: Date,
  maxBytes: number,
  form: ReducedForm,
): DeadLetterRecord {
  const full = deadLetterMessage(poison, failedAt)
  const value = poison.message.value
  const about: ConsumedHeaders = {
    'va-dead-letter-reduced': form,
    'va-original-value-bytes': String(value?.length ?? 0),
    'va-original-value-sha256': value ? createHash('sha256').update(value).digest('hex') : '',
  }
  if (form === 'truncated') {
    const headers = { ...full.headers, ...about }
    const room = maxBytes - framingBytes - (full.key?.length ?? 0) - headersBytes(headers, headerFramingBytes)
    return { key: full.key, value: value ? value.subarray(0, Math.max(0, room)) : null, headers }
  }
  const ownHeaders = Object.fromEntries(
    Object.entries(full.headers).filter(
      ([name]) => name.startsWith('va-') && !(name in (poison.message.headers ?? {})),
    ),
  )
  const key = full.key && full.key.length <= maxReferenceKeyBytes ? full.key : null
  return { key, value: null, headers: { ...ownHeaders, ...about } }
}
