import type { ShapeType } from '../../core/event/event-schema.ts'
import { eventShape } from '../../core/event/event-schema.ts'

// What a payload looks like after Kafka: a null in a field the schema knows is the same as the
// field being absent (Avro has one null), so it comes back absent; unknown fields come back
// exactly as sent, nulls included.
function decodedForm(value: unknown, type: ShapeType): unknown {
  if (type.kind === 'array') return (value as unknown[]).map((item) => decodedForm(item, type.items))
  if (type.kind !== 'record') return value
  const output: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const field = type.fields.find((candidate) => candidate.name === key)
    if (!field) output[key] = item
    else if (item !== null && item !== undefined) output[key] = decodedForm(item, field.type)
  }
  return output
}

export function asDecoded<T>(event: T): T {
  return decodedForm(event, eventShape) as T
}
