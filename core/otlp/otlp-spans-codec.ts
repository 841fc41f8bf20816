import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry'
import { compileAvroWriter } from '../event/avro-event-writer.ts'
import { type RegisteredSchema, registerAvroSchema } from '../event/event-codec.ts'
import { otlpSpansSubject } from '../kafka/topics.ts'
import { type OtlpSpans, otlpSpansAvroSchema } from './otlp-spans.ts'

// The Avro codec of voice.otlp-spans.v1 in the Confluent wire format, the sibling of the
// conversation's (event-codec.ts): the schema registered under otlpSpansSubject, records written
// by the compiled writer of it (the bytes avsc writes; a quarter less time on LiveKit requests,
// bench/results/otlp.md).
export type OtlpSpansCodec = RegisteredSchema<OtlpSpans>

export const otlpSpansWriter = compileAvroWriter(otlpSpansAvroSchema)

export function createOtlpSpansCodec(registry: SchemaRegistry): Promise<OtlpSpansCodec> {
  return registerAvroSchema<OtlpSpans>(registry, otlpSpansSubject, otlpSpansAvroSchema, otlpSpansWriter)
}
