import { WireFormatError } from '../../../core/event/cached-schema-decoder.ts'
import type { AvroRecord } from '../../../core/event/event-record.ts'
import { DependencyError } from './consume-errors.ts'
import type { PoisonReason } from './dead-letter.ts'
import type { Decoded, Poisoned, Received } from './message-outcome.ts'

// Kafka message -> Avro record through the schema registry (schemas cached by id; an unknown id
// is fetched once per message that names it). Poison is only what can never decode: no value, no
// Confluent wire format, bytes the schema the registry returns does not read, or a schema id that a
// registry proven sound (it holds the event's subject) does not know. A registry that cannot
// answer — down, 5xx, or a 404 while it does not hold the event's subject either (a wrong path,
// a gateway's 404, an empty registry) — is a DependencyError: the batch waits, nothing is committed.
// The decode step of a batch: its outcome is the message decoded, or poison (message-outcome.ts).

interface RegistryError {
  name?: string
  status?: number
  message?: string
}

export type DecodeFailure = { reason: PoisonReason; error: string } | 'dependency' | 'schema_not_found'

export function classifyDecodeError(error: unknown): DecodeFailure {
  const failure = (error ?? {}) as RegistryError
  const text = failure.message ?? String(error)
  if (failure.name === 'ConfluentSchemaRegistryArgumentError' || error instanceof WireFormatError)
    return { reason: 'not_avro', error: text }
  if (typeof failure.status === 'number') return failure.status === 404 ? 'schema_not_found' : 'dependency'
  // A refused or reset connection to the registry surfaces as a plain error with a code.
  if (/ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|socket hang up|fetch failed/i.test(text))
    return 'dependency'
  return { reason: 'undecodable', error: text }
}

export interface DecodeDeps {
  /** The record, or a promise of it while the schema of the message's id is being fetched. */
  decode: (value: Buffer) => AvroRecord | Promise<AvroRecord>
  /**
   * Whether the registry holds the event's subject (the ingress registers it): true proves the
   * registry is the right one and has data; false or an error means it cannot be trusted yet.
   */
  registryHoldsSubject: () => Promise<boolean>
}

export async function decodeMessage(deps: DecodeDeps, received: Received): Promise<Decoded | Poisoned> {
  const { topic, partition, message } = received
  const poison = (reason: PoisonReason, error: string): Poisoned => ({
    kind: 'poison',
    topic,
    partition,
    message,
    reason,
    error,
  })
  if (!message.value || message.value.length === 0) return poison('empty_value', 'the message has no value')
  try {
    return { kind: 'decoded', topic, partition, message, record: await deps.decode(message.value) }
  } catch (error) {
    const classified = classifyDecodeError(error)
    const text = (error as Error).message
    if (classified === 'dependency')
      throw new DependencyError(`schema registry unavailable: ${text}`, { cause: error })
    if (classified !== 'schema_not_found') return poison(classified.reason, classified.error)
    let holdsSubject: boolean
    try {
      holdsSubject = await deps.registryHoldsSubject()
    } catch (checkError) {
      throw new DependencyError(
        `schema registry answered 404 for a schema id and cannot be checked: ${(checkError as Error).message}`,
        { cause: error },
      )
    }
    if (!holdsSubject)
      throw new DependencyError(
        `schema registry answered 404 (${text}) and does not hold the event's subject either: a wrong ` +
          'SCHEMA_REGISTRY_URL path (Apicurio: …/apis/ccompat/v7), a gateway, or an empty registry',
        { cause: error },
      )
    return poison('unknown_schema', text)
  }
}
