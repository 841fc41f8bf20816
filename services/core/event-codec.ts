import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry'
import type { AvroRecord } from './event/event-record.ts'
import { eventAvroSchema } from './event/event-schema.ts'
import { conversationCompleteSubject } from './topics.ts'

// Avro in the Confluent wire format (magic byte, 4-byte schema id, body) through a
// Confluent-compatible registry (Apicurio's /apis/ccompat/v7 here). Schemas are cached by id;
// an unknown id is fetched once.
export interface EventCodec {
  readonly schemaId: number
  encode(record: AvroRecord): Promise<Buffer>
  decode(value: Buffer): Promise<AvroRecord>
}

/**
 * How long one registry request may take. The client sets no timeout of its own: a registry that
 * accepts and never answers (a frozen process, a blackholed network) would hold a decode, and the
 * worker's batch and shutdown with it, forever. A request timed out is a failure like any other
 * network error (retried by the client, then by the worker).
 */
export const registryRequestTimeoutMs = 10_000

export function createSchemaRegistry(
  url: string,
  requestTimeoutMs = registryRequestTimeoutMs,
): SchemaRegistry {
  return new SchemaRegistry({
    host: url,
    retry: { retries: 2, initialRetryTimeInSecs: 0.2, maxRetryTimeInSecs: 2 },
    middlewares: [
      () => ({
        async prepareRequest(next) {
          return (await next()).enhance({ timeout: requestTimeoutMs })
        },
      }),
    ],
  })
}

/** Registers the event schema under `<topic>-value` (BACKWARD) and returns a codec bound to it. */
export async function createEventCodec(registry: SchemaRegistry): Promise<EventCodec> {
  const { id } = await registry.register(
    { type: SchemaType.AVRO, schema: JSON.stringify(eventAvroSchema) },
    { subject: conversationCompleteSubject, compatibility: COMPATIBILITY.BACKWARD },
  )
  return {
    schemaId: id,
    encode: (record) => registry.encode(id, record),
    decode: (value) => registry.decode(value),
  }
}
