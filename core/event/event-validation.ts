import type { ShapeType } from './event-schema.ts'
import { eventShape, extraFieldsField } from './event-schema.ts'
import { timestampProblem } from './storable-timestamp.ts'

// Checks a ConversationComplete payload against the schema: types of every field and the
// formats the spec gives (UUIDs, ISO 8601 date-times). Unknown fields and unknown values of
// the open enumerations are valid; timestamps must be storable (storable-timestamp.ts). Pure: the ingress decides what a problem means.
export interface Problem {
  path: string
  problem: string
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

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

type ScalarType = Extract<ShapeType, { kind: 'string' | 'double' | 'long' | 'boolean' }>
const isScalar = (type: ShapeType): type is ScalarType =>
  type.kind === 'string' || type.kind === 'double' || type.kind === 'long' || type.kind === 'boolean'

/** What is wrong with a scalar, or undefined when it fits. */
function scalarProblem(value: unknown, type: ScalarType): string | undefined {
  switch (type.kind) {
    case 'string':
      if (typeof value !== 'string') return `expected string, got ${describe(value)}`
      if (type.format === 'uuid') return uuidPattern.test(value) ? undefined : 'expected a UUID'
      // The worker's definition too: what passes here is what ClickHouse can store.
      if (type.format === 'date-time') return timestampProblem(value)
      return undefined
    case 'double':
    case 'long':
      return typeof value === 'number' && Number.isFinite(value)
        ? undefined
        : `expected number, got ${describe(value)}`
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected boolean, got ${describe(value)}`
  }
}

// Paths are spelt out only on a second walk of an event that has problems: the first walk of
// every event builds no path strings (for each history item and nested record, they cost more
// than checking it). The walk is synchronous, so a flag of the module is enough.
let spellPaths = false
const fieldPath = (path: string, name: string) => (!spellPaths ? '' : path ? `${path}.${name}` : name)
const itemPath = (path: string, index: number) => (spellPaths ? `${path}[${index}]` : '')
const keyPath = (path: string, key: string) => (spellPaths ? `${path}.${key}` : '')

// Unknown fields are noticed by counting keys (no key array per object), which needs the field
// names to be absent from Object.prototype (a `value[name]` could read them from there).
function assertNoPrototypeNames(type: ShapeType): void {
  if (type.kind === 'array') assertNoPrototypeNames(type.items)
  if (type.kind === 'map') assertNoPrototypeNames(type.values)
  if (type.kind !== 'record') return
  for (const field of type.fields) {
    if (field.name in Object.prototype) throw new Error(`schema field ${field.name} shadows Object.prototype`)
    assertNoPrototypeNames(field.type)
  }
}
assertNoPrototypeNames(eventShape)

/** How many own enumerable keys an object has, without allocating their array. */
export function keyCount(value: object): number {
  let count = 0
  for (const key in value) if (Object.hasOwn(value, key)) count++
  return count
}

type Check = (value: unknown, path: string, problems: Problem[]) => unknown

/** The scalar check of one type, pushing its misfit; the value is its own Avro form. */
function scalarCheck(type: ScalarType): Check {
  return (value, path, problems) => {
    const problem = scalarProblem(value, type)
    if (problem !== undefined) problems.push({ path, problem })
    return value
  }
}

/**
 * A function that checks a value against `type`, pushing each misfit to `problems`, and returns
 * its Avro form in the same walk: a record with null for every absent field and the fields the
 * schema does not know as JSON text in extra_fields_json. Arrays and maps of scalars need no
 * mapping and are returned as they are, not copied. Once a problem is found the value returned
 * is of no use. Built once per shape (records: compiledRecordCheck).
 */
function compileCheck(type: ShapeType): Check {
  if (isScalar(type)) return scalarCheck(type)
  switch (type.kind) {
    case 'array': {
      const items = type.items
      const itemCheck = isScalar(items) ? undefined : compileCheck(items)
      return (value, path, problems) => {
        if (!Array.isArray(value)) {
          problems.push({ path, problem: `expected array, got ${describe(value)}` })
          return value
        }
        if (itemCheck === undefined) {
          for (let index = 0; index < value.length; index++) {
            const problem = scalarProblem(value[index], items as ScalarType)
            if (problem !== undefined) problems.push({ path: itemPath(path, index), problem })
          }
          return value
        }
        const mapped = new Array<unknown>(value.length)
        for (let index = 0; index < value.length; index++)
          mapped[index] = itemCheck(value[index], itemPath(path, index), problems)
        return mapped
      }
    }
    case 'map': {
      const values = type.values
      const valueCheck = isScalar(values) ? undefined : compileCheck(values)
      return (value, path, problems) => {
        if (!isPlainObject(value)) {
          problems.push({ path, problem: `expected object, got ${describe(value)}` })
          return value
        }
        if (valueCheck === undefined) {
          for (const key of Object.keys(value)) {
            const problem = scalarProblem(value[key], values as ScalarType)
            if (problem !== undefined) problems.push({ path: keyPath(path, key), problem })
          }
          return value
        }
        const mapped: Record<string, unknown> = {}
        for (const key of Object.keys(value))
          mapped[key] = valueCheck(value[key], keyPath(path, key), problems)
        return mapped
      }
    }
    case 'record':
      return compiledRecordCheck(type)
  }
}

/**
 * The fields the record's schema does not know, as JSON text for extra_fields_json (null if
 * none), after refusing any nested deeper than maxUnknownFieldDepth.
 */
export function unknownFields(
  value: Record<string, unknown>,
  known: ReadonlySet<string>,
  path: string,
  problems: Problem[],
): string | null {
  let extra: Record<string, unknown> | undefined
  let tooDeep = false
  for (const key of Object.keys(value)) {
    if (known.has(key)) continue
    const item = value[key]
    if (deeperThan(item, maxUnknownFieldDepth)) {
      tooDeep = true
      problems.push({
        path: fieldPath(path, key),
        problem: `nested deeper than ${maxUnknownFieldDepth} levels`,
      })
    }
    extra ??= {}
    extra[key] = item
  }
  // A too-deep extra is not stringified: it could overflow JSON.stringify's recursion.
  return extra && !tooDeep ? JSON.stringify(extra) : null
}

/**
 * A record's check as code generated from its shape: each field read and the Avro record built
 * with fixed property names (an object literal of one hidden class), where a loop over the
 * fields would read them by a variable key. The names are the schema's own (JSON-quoted; none
 * shadows Object.prototype, checked above); the generated code calls the helpers above.
 */
function compiledRecordCheck(type: ShapeType & { kind: 'record' }): Check {
  const scalars = type.fields.map((field) => (isScalar(field.type) ? field.type : undefined))
  const checks = type.fields.map((field) => (isScalar(field.type) ? undefined : compileCheck(field.type)))
  const lines: string[] = [
    'if (!isPlainObject(value)) {',
    "  problems.push({ path, problem: 'expected object, got ' + describe(value) })",
    '  return value',
    '}',
    'let present = 0 // known fields the object has as own keys (null included)',
    'let v, problem',
  ]
  type.fields.forEach((field, index) => {
    const name = JSON.stringify(field.name)
    lines.push(
      `v = value[${name}]`,
      `let f${index} = null`,
      'if (v === undefined || v === null) {',
      '  if (v === null) present++',
      field.optional ? '' : `  problems.push({ path: fieldPath(path, ${name}), problem: 'required' })`,
      '} else {',
      '  present++',
      scalars[index]
        ? `  problem = scalarProblem(v, scalars[${index}])\n` +
            `  if (problem !== undefined) problems.push({ path: fieldPath(path, ${name}), problem })\n` +
            `  f${index} = v`
        : `  f${index} = checks[${index}](v, fieldPath(path, ${name}), problems)`,
      '}',
    )
  })
  const extraName = JSON.stringify(extraFieldsField)
  lines.push(
    `const record = { ${type.fields.map((field, index) => `${JSON.stringify(field.name)}: f${index}`).join(', ')}, ${extraName}: null }`,
    // Every own key is a known field: nothing to carry (the common case, decided by a count).
    `if (keyCount(value) !== present) record[${extraName}] = unknownFields(value, known, path, problems)`,
    'return record',
  )
  const helpers = {
    isPlainObject,
    describe,
    scalarProblem,
    fieldPath,
    keyCount,
    unknownFields,
    scalars,
    checks,
    known: type.known,
  }
  const build = new Function(
    'helpers',
    `const { ${Object.keys(helpers).join(', ')} } = helpers\nreturn function check(value, path, problems) {\n${lines.join('\n')}\n}`,
  )
  return build(helpers) as Check
}

const checkEvent = compileCheck(eventShape)

/**
 * One walk over a ConversationComplete payload: every way it misfits the schema (empty when it
 * fits) and, when it fits, its Avro record (without the ingestion metadata).
 */
export function validateToAvro(payload: unknown): { problems: Problem[]; record: Record<string, unknown> } {
  const problems: Problem[] = []
  const record = checkEvent(payload, '', problems) as Record<string, unknown>
  if (problems.length === 0) return { problems, record }
  // A misfit: walked again, spelling out where each problem is.
  const located: Problem[] = []
  spellPaths = true
  try {
    checkEvent(payload, '', located)
  } finally {
    spellPaths = false
  }
  return { problems: located, record }
}

/** Every way a ConversationComplete payload misfits the schema; empty when it fits. */
export function validateConversationComplete(payload: unknown): Problem[] {
  return validateToAvro(payload).problems
}
