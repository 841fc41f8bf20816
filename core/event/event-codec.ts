import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry'
import { conversationCompleteSubject } from '../kafka/topics.ts'
import { compileAvroWriter } from './avro-event-writer.ts'
import type { AvroRecord } from './event-record.ts'
import { eventAvroSchema } from './event-schema.ts'

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

/** A writer into a buffer at a position: avsc's Type.encode contract (compileAvroWriter keeps it). */
interface AvroWriter {
  encode(value: unknown, buffer: Buffer, position: number): number
}

/** The Confluent wire header: magic byte 0, then the schema id as a big-endian int32. */
export const wireHeaderBytes = 5

/** Writes the wire header into the first wireHeaderBytes of a message written after them. */
export function writeWireHeader(message: Buffer, schemaId: number): Buffer {
  message[0] = 0
  message.writeInt32BE(schemaId, 1)
  return message
}

/**
 * Encodes in the Confluent wire format with a writer compiled once: the record is
 * written once, after the header, into a scratch buffer that grows to the largest record seen,
 * and copied out once. (The registry client's encode writes a record larger than avsc's 1 KB
 * scratch twice, to learn its size, and then copies it again to prepend the header.)
 */
export function wireEncoder<T = AvroRecord>(schemaId: number, type: AvroWriter): (record: T) => Buffer {
  let scratch = Buffer.allocUnsafe(64 * 1024)
  return (record) => {
    for (;;) {
      const end = type.encode(record, scratch, wireHeaderBytes)
      if (end >= 0) {
        const framed = Buffer.allocUnsafe(end)
        scratch.copy(framed, wireHeaderBytes, wireHeaderBytes, end)
        return writeWireHeader(framed, schemaId)
      }
      // A negative position is the number of bytes missing.
      scratch = Buffer.allocUnsafe(2 * (scratch.length - end))
    }
  }
}

/** A schema registered under a subject, with the writer of its records in the wire format. */
export interface RegisteredSchema<T> {
  readonly schemaId: number
  encode(record: T): Buffer
  decode(value: Buffer): Promise<T>
}

/** Registers an Avro schema under `subject` (BACKWARD) and binds `writer` (a writer of it) to its id. */
export async function registerAvroSchema<T>(
  registry: SchemaRegistry,
  subject: string,
  schema: object,
  writer: AvroWriter,
): Promise<RegisteredSchema<T>> {
  const { id } = await registry.register(
    { type: SchemaType.AVRO, schema: JSON.stringify(schema) },
    { subject, compatibility: COMPATIBILITY.BACKWARD },
  )
  return { schemaId: id, encode: wireEncoder<T>(id, writer), decode: (value) => registry.decode(value) }
}

/** Registers the event schema under `<topic>-value` (BACKWARD) and returns a codec bound to it. */
export async function createEventCodec(registry: SchemaRegistry): Promise<EventCodec> {
  // Our compiled writer of the schema (the bytes avsc would write).
  const { schemaId, encode, decode } = await registerAvroSchema<AvroRecord>(
    registry,
    conversationCompleteSubject,
    eventAvroSchema,
    compileAvroWriter(eventAvroSchema),
  )
  return { schemaId, encode: async (record) => encode(record), decode }
}
