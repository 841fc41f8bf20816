import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry'
import avro from 'avsc'
import { type RegisteredSchema, registerAvroSchema } from '../event/event-codec.ts'
import { otlpSpansSubject } from '../kafka/topics.ts'
import { type OtlpSpans, otlpSpansAvroSchema } from './otlp-spans.ts'

// The Avro codec of voice.otlp-spans.v1 in the Confluent wire format, the sibling of the
// conversation's (event-codec.ts): the schema registered under otlpSpansSubject, records written
// by avsc's writer of it (its named types and ints are beyond the event schema's compiled writer).
export type OtlpSpansCodec = RegisteredSchema<OtlpSpans>

export const otlpSpansAvroType = avro.Type.forSchema(otlpSpansAvroSchema)

export function createOtlpSpansCodec(registry: SchemaRegistry): Promise<OtlpSpansCodec> {
  return registerAvroSchema<OtlpSpans>(registry, otlpSpansSubject, otlpSpansAvroSchema, otlpSpansAvroType)
}
