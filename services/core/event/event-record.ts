import type { ConversationCompleteEvent } from './conversation-complete.types.ts'
import type { ShapeType } from './event-schema.ts'
import { eventShape, extraFieldsField } from './event-schema.ts'

// Between the platform's JSON and the Avro record: absent fields become null, and fields the
// schema does not know travel as JSON text in each record's extra_fields_json, so decoding
// gives back what the platform sent (JSON null and an absent field are the same to us).
export interface IngestMetadata {
  source: string | null
  receivedAt: number | null
}
export type AvroRecord = Record<string, unknown>

function toAvro(value: unknown, type: ShapeType): unknown {
  switch (type.kind) {
    case 'array':
      return (value as unknown[]).map((item) => toAvro(item, type.items))
    case 'map':
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([key, item]) => [
          key,
          toAvro(item, type.values),
        ]),
      )
    case 'record': {
      const input = value as Record<string, unknown>
      const record: AvroRecord = {}
      for (const field of type.fields) {
        const fieldValue = input[field.name]
        record[field.name] =
          fieldValue === undefined || fieldValue === null ? null : toAvro(fieldValue, field.type)
      }
      let extra: Record<string, unknown> | undefined
      for (const key of Object.keys(input)) {
        if (type.known.has(key)) continue
        extra ??= {}
        extra[key] = input[key]
      }
      record[extraFieldsField] = extra ? JSON.stringify(extra) : null
      return record
    }
    default:
      return value
  }
}

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
  const record = toAvro(event, eventShape) as AvroRecord
  record.source = ingest.source
  record.received_at = ingest.receivedAt
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
    },
  }
}
