import type { AvroRecord } from '../core/event/event-record.ts'
import type { KafkaMessage } from '../core/kafka.ts'
import type { PoisonReason } from './dead-letter.ts'

// Kafka message -> Avro record through the schema registry (schemas cached by id; an unknown id
// is fetched once per message that names it). What can never decode is poison; a registry that
// cannot answer right now is a DependencyError, and the batch waits for it.
export type DecodeResult =
  | { ok: true; record: AvroRecord }
  | { ok: false; reason: PoisonReason; error: string }

export class DependencyError extends Error {
  override name = 'DependencyError'
}

interface RegistryError {
  name?: string
  status?: number
  message?: string
}

export function classifyDecodeError(error: unknown): { reason: PoisonReason; error: string } | 'dependency' {
  const failure = (error ?? {}) as RegistryError
  const text = failure.message ?? String(error)
  if (failure.name === 'ConfluentSchemaRegistryArgumentError') return { reason: 'not_avro', error: text }
  if (typeof failure.status === 'number')
    return failure.status === 404 ? { reason: 'unknown_schema', error: text } : 'dependency'
  // A refused or reset connection to the registry surfaces as a plain error with a code.
  if (/ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|socket hang up|fetch failed/i.test(text))
    return 'dependency'
  return { reason: 'undecodable', error: text }
}

export async function decodeMessage(
  decode: (value: Buffer) => Promise<AvroRecord>,
  message: KafkaMessage,
): Promise<DecodeResult> {
  if (!message.value || message.value.length === 0)
    return { ok: false, reason: 'empty_value', error: 'the message has no value' }
  try {
    return { ok: true, record: await decode(message.value) }
  } catch (error) {
    const classified = classifyDecodeError(error)
    if (classified === 'dependency')
      throw new DependencyError(`schema registry unavailable: ${(error as Error).message}`, { cause: error })
    return { ok: false, ...classified }
  }
}
