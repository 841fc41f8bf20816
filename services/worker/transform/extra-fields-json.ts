import { extraFieldsField } from '../../../core/event/event-schema.ts'

/** What the schema does not know of an object of the payload, as the JSON text it came as; else null. */
export function extraFieldsJson(object: Record<string, unknown> | null | undefined): string | null {
  const extra = object?.[extraFieldsField]
  return typeof extra === 'string' ? extra : null
}
