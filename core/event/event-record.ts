import type { ConversationCompleteEvent, Origin } from './conversation-complete.types.ts'
import type { ShapeType } from './event-schema.ts'
import { eventShape, extraFieldsField } from './event-schema.ts'
import { validateToAvro } from './event-validation.ts'

// Between the platform's JSON and the Avro record: absent fields become null, and fields the
// schema does not know travel as JSON text in each record's extra_fields_json, so decoding
// gives back what the platform sent (JSON null and an absent field are the same to us). The
// way in is built by the validation walk itself (validateToAvro), so an event is walked once.
export interface IngestMetadata {
  source: string | null
  receivedAt: number | null
  /** Set by the OTLP assembler; a webhook has none (null). */
  origin?: Origin | null
}
export type AvroRecord = Record<string, unknown>

function fromAvro(value: unknown, type: ShapeType): unknown {
  switch (type.kind) {
    case 'array':
      return (value as unknown[]).map((item) => fromAvro(item, type.items))
    case 'map':
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([key, item]) => [
          key,
          fromAvro(item, type.values),
        ]),
      )
    case 'record': {
      const record = value as AvroRecord
      const output: Record<string, unknown> = {}
      for (const field of type.fields) {
        const fieldValue = record[field.name]
        if (fieldValue !== null && fieldValue !== undefined)
          output[field.name] = fromAvro(fieldValue, field.type)
      }
      const extra = record[extraFieldsField]
      if (typeof extra === 'string') {
        // defineProperty, not assignment: a carried '__proto__' key must stay a plain key.
        for (const [key, item] of Object.entries(JSON.parse(extra) as Record<string, unknown>))
          Object.defineProperty(output, key, {
            value: item,
            enumerable: true,
            writable: true,
            configurable: true,
          })
      }
      return output
    }
    default:
      return value
  }
}

/** The Avro record of a payload that passed validateConversationComplete. */
export function toAvroRecord(event: ConversationCompleteEvent, ingest: IngestMetadata): AvroRecord {
  return withIngest(validateToAvro(event).record, ingest)
}

/** Adds our ingestion metadata to a record that validateToAvro built (in place: no copy). */
export function withIngest(record: AvroRecord, ingest: IngestMetadata): AvroRecord {
  record.source = ingest.source
  record.received_at = ingest.receivedAt
  record.origin = ingest.origin ?? null
  return record
}

/** The platform's payload (unknown fields restored) and our ingestion metadata. */
export function fromAvroRecord(record: AvroRecord): {
  event: ConversationCompleteEvent
  ingest: IngestMetadata
} {
  const event = fromAvro(record, eventShape) as ConversationCompleteEvent
  const receivedAt = record.received_at
  return {
    event,
    ingest: {
      source: typeof record.source === 'string' ? record.source : null,
      receivedAt: typeof receivedAt === 'number' ? receivedAt : null,
      // Only an assembled conversation has one: a webhook's metadata stays source and time.
      ...(record.origin ? { origin: record.origin as Origin } : {}),
    },
  }
}
