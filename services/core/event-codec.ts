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

export function createSchemaRegistry(url: string): SchemaRegistry {
  return new SchemaRegistry({
    host: url,
    retry: { retries: 2, initialRetryTimeInSecs: 0.2, maxRetryTimeInSecs: 2 },
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
