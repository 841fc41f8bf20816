import type { ShapeType } from './event-schema.ts'
import { eventShape } from './event-schema.ts'
import { checkTimestamp } from './storable-timestamp.ts'

// Checks a ConversationComplete payload against the schema: types of every field and the
// formats the spec gives (UUIDs, ISO 8601 date-times). Unknown fields and unknown values of
// the open enumerations are valid; timestamps must be storable (storable-timestamp.ts). Pure: the ingress decides what a problem means.
export interface Problem {
  path: string
  problem: string
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Nesting allowed inside fields the schema does not know (they are carried as JSON text). */
export const maxUnknownFieldDepth = 32

function deeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (limit === 0) return true
  for (const item of Array.isArray(value) ? value : Object.values(value))
    if (deeperThan(item, limit - 1)) return true
  return false
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

function check(value: unknown, type: ShapeType, path: string, problems: Problem[]): void {
  switch (type.kind) {
    case 'string':
      if (typeof value !== 'string')
        problems.push({ path, problem: `expected string, got ${describe(value)}` })
      else if (type.format === 'uuid' && !uuidPattern.test(value))
        problems.push({ path, problem: 'expected a UUID' })
      else if (type.format === 'date-time') {
        // The worker's definition too: what passes here is what ClickHouse can store.
        const timestamp = checkTimestamp(value)
        if (!timestamp.ok) problems.push({ path, problem: timestamp.problem })
      }
      return
    case 'double':
    case 'long':
      if (typeof value !== 'number' || !Number.isFinite(value))
        problems.push({ path, problem: `expected number, got ${describe(value)}` })
      return
    case 'boolean':
      if (typeof value !== 'boolean')
        problems.push({ path, problem: `expected boolean, got ${describe(value)}` })
      return
    case 'array':
      if (!Array.isArray(value)) problems.push({ path, problem: `expected array, got ${describe(value)}` })
      else for (const [index, item] of value.entries()) check(item, type.items, `${path}[${index}]`, problems)
      return
    case 'map':
      if (!isPlainObject(value)) problems.push({ path, problem: `expected object, got ${describe(value)}` })
      else
        for (const [key, item] of Object.entries(value)) check(item, type.values, `${path}.${key}`, problems)
      return
    case 'record':
      if (!isPlainObject(value)) {
        problems.push({ path, problem: `expected object, got ${describe(value)}` })
        return
      }
      for (const field of type.fields) {
        const fieldPath = path ? `${path}.${field.name}` : field.name
        const fieldValue = value[field.name]
        if (fieldValue === undefined || fieldValue === null) {
          if (!field.optional) problems.push({ path: fieldPath, problem: 'required' })
        } else check(fieldValue, field.type, fieldPath, problems)
      }
      for (const key in value) {
        if (!type.known.has(key) && deeperThan(value[key], maxUnknownFieldDepth))
          problems.push({
            path: path ? `${path}.${key}` : key,
            problem: `nested deeper than ${maxUnknownFieldDepth} levels`,
          })
      }
  }
}

/** Every way a ConversationComplete payload misfits the schema; empty when it fits. */
export function validateConversationComplete(payload: unknown): Problem[] {
  const problems: Problem[] = []
  check(payload, eventShape, '', problems)
  return problems
}
