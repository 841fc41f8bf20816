import { eventShape, type ShapeType } from './event-schema.ts'
import { isPlainObject } from './event-validation.ts'

// Every date-time of an event, found by the schema (fields whose format is 'date-time'), not by
// field names: a new timestamp field of the schema is found without a change here.

/** A copy of the event in which fn replaced each date-time string; everything else is kept as is. */
export function mapDateTimes(event: unknown, fn: (text: string) => string): unknown {
  return mapValue(event, eventShape, fn)
}

function mapValue(value: unknown, type: ShapeType, fn: (text: string) => string): unknown {
  if (value === null || value === undefined) return value
  switch (type.kind) {
    case 'string':
      return type.format === 'date-time' && typeof value === 'string' ? fn(value) : value
    case 'array':
      return Array.isArray(value) ? value.map((item) => mapValue(item, type.items, fn)) : value
    case 'map':
      return isPlainObject(value)
        ? Object.fromEntries(
            Object.entries(value).map(([key, item]) => [key, mapValue(item, type.values, fn)]),
          )
        : value
    case 'record': {
      if (!isPlainObject(value)) return value
      const copy: Record<string, unknown> = { ...value }
      for (const field of type.fields)
        if (field.name in copy) copy[field.name] = mapValue(copy[field.name], field.type, fn)
      return copy
    }
    default:
      return value
  }
}
