import { readFileSync } from 'node:fs'

// The Avro schema of ConversationComplete (the Kafka contract) is the one source of truth:
// the TypeScript types are generated from it and the validator walks it.
export const eventSchemaFile = new URL('../../schemas/avro/conversation-complete.v1.avsc', import.meta.url)
export const eventAvroSchema: AvroRecordSchema = JSON.parse(readFileSync(eventSchemaFile, 'utf8'))

export interface AvroRecordSchema {
  type: 'record'
  name: string
  namespace?: string
  doc?: string
  fields: AvroFieldSchema[]
}
export interface AvroFieldSchema {
  name: string
  type: AvroTypeSchema
  default?: null
  doc?: string
  /** Ours, not Avro's: a string format the ingress checks ('uuid' or 'date-time'). */
  format?: StringFormat
}
export type AvroTypeSchema =
  | 'string'
  | 'double'
  | 'boolean'
  | 'long'
  | AvroRecordSchema
  | { type: 'array'; items: AvroTypeSchema }
  | { type: 'map'; values: AvroTypeSchema }
  | { type: 'long'; logicalType: 'timestamp-millis' }
  | ['null', AvroTypeSchema]

export type StringFormat = 'uuid' | 'date-time'

/** Our own field on every record: the object's fields the schema does not know, as JSON text. */
export const extraFieldsField = 'extra_fields_json'
/**
 * Ingestion metadata on the envelope; never part of a platform payload: the ingress sets source and
 * received_at, the OTLP assembler also origin (null for a webhook).
 */
export const ingestFields = ['source', 'received_at', 'origin'] as const

/** A schema type, resolved for walking: optional-ness and formats made explicit. */
export type ShapeType =
  | { kind: 'string'; format?: StringFormat }
  | { kind: 'double' }
  | { kind: 'boolean' }
  | { kind: 'long' }
  | { kind: 'record'; name: string; fields: ShapeField[]; known: Set<string> }
  | { kind: 'array'; items: ShapeType }
  | { kind: 'map'; values: ShapeType }
export interface ShapeField {
  name: string
  optional: boolean
  type: ShapeType
}

function toShape(type: AvroTypeSchema, format?: StringFormat): { type: ShapeType; optional: boolean } {
  if (Array.isArray(type)) return { type: toShape(type[1], format).type, optional: true }
  if (type === 'string')
    return { type: format ? { kind: 'string', format } : { kind: 'string' }, optional: false }
  if (type === 'double' || type === 'boolean' || type === 'long')
    return { type: { kind: type }, optional: false }
  switch (type.type) {
    case 'long':
      return { type: { kind: 'long' }, optional: false }
    case 'array':
      return { type: { kind: 'array', items: toShape(type.items).type }, optional: false }
    case 'map':
      return { type: { kind: 'map', values: toShape(type.values).type }, optional: false }
    case 'record':
      return { type: recordShape(type), optional: false }
  }
}

function recordShape(record: AvroRecordSchema, skip: readonly string[] = []): ShapeType & { kind: 'record' } {
  const fields = record.fields
    .filter((field) => field.name !== extraFieldsField && !skip.includes(field.name))
    .map((field) => ({ name: field.name, ...toShape(field.type, field.format) }))
  return { kind: 'record', name: record.name, fields, known: new Set(fields.map((field) => field.name)) }
}

/** The platform's payload as the schema describes it (without our ingestion metadata). */
export const eventShape = recordShape(eventAvroSchema, ingestFields)

/** The origin record of an assembled conversation (ingestion metadata; its TypeScript type is generated too). */
export const originShape = toShape(eventAvroSchema.fields.find((field) => field.name === 'origin')!.type)
  .type as ShapeType & { kind: 'record' }
