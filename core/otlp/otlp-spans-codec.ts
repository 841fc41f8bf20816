import { COMPATIBILITY, type SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry'
import avro from 'avsc'
import { wireEncoder } from '../event/event-codec.ts'
import type { AvroRecord } from '../event/event-record.ts'
import { otlpSpansSubject } from '../kafka/topics.ts'
import { type OtlpSpans, otlpSpansAvroSchema } from './otlp-spans.ts'

// OtlpSpans in the Confluent wire format, under the spans topic's subject (BACKWARD): what the
// receiver writes, and what the assembler writes back when it dead-letters a trace's spans.
export async function createOtlpSpansEncoder(
  registry: SchemaRegistry,
): Promise<(message: OtlpSpans) => Buffer> {
  const { id } = await registry.register(
    { type: SchemaType.AVRO, schema: JSON.stringify(otlpSpansAvroSchema) },
    { subject: otlpSpansSubject, compatibility: COMPATIBILITY.BACKWARD },
  )
  const encode = wireEncoder(id, avro.Type.forSchema(otlpSpansAvroSchema))
  return (message) => encode(message as unknown as AvroRecord)
}
