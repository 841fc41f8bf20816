import type { ShapeType } from './event-schema.ts'
import { eventShape, originShape } from './event-schema.ts'

// Renders the TypeScript types of the platform's payload from the schema (see
// scripts/generate-event-types.ts). Every record also admits fields the schema does not know.
function typeName(recordName: string): string {
  return recordName === 'ConversationComplete' ? 'ConversationCompleteEvent' : recordName
}

function render(type: ShapeType, records: Map<string, string>): string {
  switch (type.kind) {
    case 'string':
      return 'string'
    case 'double':
    case 'long':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'array':
      return `${render(type.items, records)}[]`
    case 'map':
      return `Record<string, ${render(type.values, records)}>`
    case 'record': {
      const name = typeName(type.name)
      if (!records.has(name)) {
        records.set(name, '')
        const lines = type.fields.map((field) => {
          const value = render(field.type, records)
          return field.optional ? `  ${field.name}?: ${value} | null` : `  ${field.name}: ${value}`
        })
        records.set(
          name,
          `export interface ${name} {\n${lines.join('\n')}\n  [unknownField: string]: unknown\n}\n`,
        )
      }
      return name
    }
  }
}

export function renderEventTypes(): string {
  const records = new Map<string, string>()
  render(eventShape, records)
  render(originShape, records)
  const header =
    '// Generated from schemas/avro/conversation-complete.v1.avsc by `npm run generate`. Do not edit.\n' +
    '// The platform payload: every field but data.session_id may be absent; unknown fields are kept.\n' +
    "// Origin: ingestion metadata of a conversation assembled from OTLP spans (the envelope's origin).\n"
  return `${header}\n${[...records.values()].join('\n')}`
}
