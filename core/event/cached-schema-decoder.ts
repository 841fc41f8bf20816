import { wireHeaderBytes } from './event-codec.ts'
import type { AvroRecord } from './event-record.ts'

// Decoding the Confluent wire format with the registry's schemas, each schema id's reader kept after
// its first fetch (the worker's event topic, the assembler's spans topic).

/** Bytes that do not start with the Confluent wire format's magic byte 0. */
export class WireFormatError extends Error {
  override name = 'WireFormatError'
}

/** What the decoder asks the registry: a schema id's reader (the registry client's getSchema). */
export interface SchemaSource {
  getSchema(id: number): Promise<{ fromBuffer(payload: Buffer): unknown }>
}

/**
 * Decodes the Confluent wire format as the registry client's decode does, with the reader of each
 * schema id kept after its first fetch: a message of a known id decodes synchronously (no promise,
 * no header copies). What fails fails as there: a header shorter than 5 bytes is a RangeError
 * (undecodable), another magic byte not Avro, an id the registry cannot give its error (404,
 * down), bytes the schema does not read avsc's error. A failed fetch is not kept: the next message
 * of that id asks again.
 */
export function cachedSchemaDecoder(
  registry: SchemaSource,
): (value: Buffer) => AvroRecord | Promise<AvroRecord> {
  const readers = new Map<number, { fromBuffer(payload: Buffer): unknown }>()
  return (value) => {
    if (value.length < wireHeaderBytes)
      throw new RangeError(`${value.length} bytes: shorter than the Confluent wire format's 5-byte header`)
    if (value[0] !== 0) throw new WireFormatError(`Message encoded with magic byte ${value[0]}, expected 0`)
    const id = value.readInt32BE(1)
    const payload = value.subarray(wireHeaderBytes)
    const reader = readers.get(id)
    if (reader) return reader.fromBuffer(payload) as AvroRecord
    return registry.getSchema(id).then((fetched) => {
      readers.set(id, fetched)
      return fetched.fromBuffer(payload) as AvroRecord
    })
  }
}
