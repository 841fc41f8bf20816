import type { IHeaders, KafkaMessage } from '../core/kafka.ts'

// A message the worker cannot store, as it goes to the dead-letter topic: the original key,
// value bytes and headers untouched, plus where it came from and what went wrong, so it can be
// inspected, fixed and replayed.
export type PoisonReason =
  | 'empty_value'
  | 'not_avro'
  | 'unknown_schema'
  | 'undecodable'
  | 'transform_error'
  | 'rejected_by_clickhouse'

export interface Poison {
  message: KafkaMessage
  topic: string
  partition: number
  reason: PoisonReason
  error: string
}

export const maxErrorHeaderLength = 2000

export function deadLetterMessage(
  poison: Poison,
  failedAt: Date,
): { key: Buffer | null; value: Buffer | null; headers: IHeaders } {
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
