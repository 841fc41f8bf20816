import type { AvroRecordSchema, AvroTypeSchema } from '../../core/event/event-schema.ts'

// The landing table's columns, derived from the event's Avro schema (the one source of truth) as
// FORMAT AvroConfluent reads it, so views.sql cannot drift from the contract: a nullable union of
// an array, map or record reads as the bare array/map/tuple (null as empty, or a tuple of nulls);
// of anything else as Nullable(T).

function primitiveType(type: AvroTypeSchema): string {
  if (type === 'string') return 'String'
  if (type === 'double') return 'Float64'
  if (type === 'boolean') return 'Bool'
  if (type === 'long') return 'Int64'
  if (typeof type === 'object' && !Array.isArray(type) && type.type === 'long' && 'logicalType' in type) {
    return "DateTime64(3, 'UTC')"
  }
  throw new Error(`no ClickHouse type for Avro ${JSON.stringify(type)}`)
}

/** The ClickHouse type AvroConfluent reads an Avro type as. */
export function clickhouseTypeOfAvro(type: AvroTypeSchema): string {
  if (Array.isArray(type)) {
    const inner = clickhouseTypeOfAvro(type[1])
    const composite = /^(Array|Map|Tuple)\(/.test(inner)
    return composite ? inner : `Nullable(${inner})`
  }
  if (typeof type === 'object' && type.type === 'record') {
    return `Tuple(${type.fields.map((field) => `${field.name} ${clickhouseTypeOfAvro(field.type)}`).join(', ')})`
  }
  if (typeof type === 'object' && type.type === 'array') return `Array(${clickhouseTypeOfAvro(type.items)})`
  if (typeof type === 'object' && type.type === 'map')
    return `Map(String, ${clickhouseTypeOfAvro(type.values)})`
  return primitiveType(type)
}

/** `name Type` per top-level field of the record, comma-separated, one per line. */
export function landingColumns(schema: AvroRecordSchema): string {
  return schema.fields.map((field) => `    ${field.name} ${clickhouseTypeOfAvro(field.type)}`).join(',\n')
}
