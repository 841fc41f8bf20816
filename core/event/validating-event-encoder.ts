import {
  compileWrite,
  startWriting,
  writeBoolean,
  writeDouble,
  writeLong,
  writeString,
  writeUnionBranch,
  written,
} from './avro-event-writer.ts'
import { wireHeaderBytes } from './event-codec.ts'
import { type AvroRecord, type IngestMetadata, withIngest } from './event-record.ts'
import type { AvroRecordSchema, AvroTypeSchema, ShapeType } from './event-schema.ts'
import { eventAvroSchema, eventShape, extraFieldsField, type ingestFields } from './event-schema.ts'
import { isPlainObject, keyCount, type Problem, unknownFields, validateToAvro } from './event-validation.ts'
import { doubleFits, longFits, timestampFits, uuidFits } from './scalar-fits.ts'

// The ingress's one walk per event: each field of a ConversationComplete payload is checked and
// its Avro bytes written straight into a reusable buffer, in the same step, by code generated per
// record from the schema. No mapped record is built and nothing is read twice. The walk only says
// whether the payload fits: on the first misfit it stops, and the event is walked again by
// validateToAvro (event-validation.ts), the one source of the problems and their paths.
// The bytes are those of the compiled writer (avro-event-writer.ts) for the record validateToAvro
// builds: a unit test compares them on varied events.

type RecordShape = ShapeType & { kind: 'record' }
/** Checks and writes one value; false at the first misfit (what was written is then of no use). */
type CheckWrite = (value: unknown, ingest?: IngestMetadata) => boolean

// Where the top-level ingestion fields come from.
export const ingestProperty: Record<(typeof ingestFields)[number], keyof IngestMetadata> = {
  source: 'source',
  received_at: 'receivedAt',
  origin: 'origin',
}

const isUnion = (type: AvroTypeSchema): type is ['null', AvroTypeSchema] => Array.isArray(type)

/** The record schema under a type (a union's value branch, an array's items, …). */
function recordSchemaOf(type: AvroTypeSchema): AvroRecordSchema {
  if (isUnion(type)) return recordSchemaOf(type[1])
  if (typeof type === 'object' && type.type === 'record') return type
  throw new Error(`not a record: ${JSON.stringify(type)}`)
}

/** What generated code calls; records' own functions are added as they are compiled. */
interface Helpers {
  isPlainObject: typeof isPlainObject
  keyCount: typeof keyCount
  uuidFits: typeof uuidFits
  timestampFits: typeof timestampFits
  doubleFits: typeof doubleFits
  longFits: typeof longFits
  extraJson: (value: Record<string, unknown>, known: ReadonlySet<string>) => string | null | false
  writeLong: typeof writeLong
  writeString: typeof writeString
  writeDouble: typeof writeDouble
  writeBoolean: typeof writeBoolean
  writeUnionBranch: typeof writeUnionBranch
  records: CheckWrite[]
  ingestWriters: Record<string, (value: unknown) => void>
  knownSets: ReadonlySet<string>[]
}

/**
 * The fields the schema does not know as validateToAvro carries them (the same function), or
 * false when one of them is a misfit (nested too deep).
 */
function extraJson(value: Record<string, unknown>, known: ReadonlySet<string>): string | null | false {
  const problems: Problem[] = []
  const json = unknownFields(value, known, '', problems)
  return problems.length === 0 ? json : false
}

class Generator {
  readonly helpers: Helpers = {
    isPlainObject,
    keyCount,
    uuidFits,
    timestampFits,
    doubleFits,
    longFits,
    extraJson,
    writeLong,
    writeString,
    writeDouble,
    writeBoolean,
    writeUnionBranch,
    records: [],
    ingestWriters: {},
    knownSets: [],
  }
  private readonly compiled = new Map<RecordShape, number>()
  private variable = 0

  /** Code that checks `expr` against `shape` and writes it as `avro` (a union is its value branch). */
  value(shape: ShapeType, avro: AvroTypeSchema, expr: string): string[] {
    if (isUnion(avro)) return ['writeUnionBranch(1)', ...this.value(shape, avro[1], expr)]
    switch (shape.kind) {
      case 'string': {
        const format =
          shape.format === 'uuid'
            ? ` || !uuidFits(${expr})`
            : shape.format === 'date-time'
              ? ` || !timestampFits(${expr})`
              : ''
        return [`if (typeof ${expr} !== 'string'${format}) return false`, `writeString(${expr})`]
      }
      case 'double':
        return [
          `if (typeof ${expr} !== 'number' || !doubleFits(${expr})) return false`,
          `writeDouble(${expr})`,
        ]
      case 'long':
        // A number the validation takes but the writer refuses also falls back (and fails there alike).
        return [`if (typeof ${expr} !== 'number' || !longFits(${expr})) return false`, `writeLong(${expr})`]
      case 'boolean':
        return [`if (typeof ${expr} !== 'boolean') return false`, `writeBoolean(${expr})`]
      case 'record':
        return [`if (!records[${this.record(shape, recordSchemaOf(avro))}](${expr})) return false`]
      case 'array': {
        if (typeof avro !== 'object' || avro.type !== 'array')
          throw new Error('array shape, not array schema')
        const n = `n${this.variable++}`
        const i = `i${this.variable++}`
        const item = `x${this.variable++}`
        return [
          `if (!Array.isArray(${expr})) return false`,
          `const ${n} = ${expr}.length`,
          `if (${n} > 0) {`,
          `  writeLong(${n})`,
          `  for (let ${i} = 0; ${i} < ${n}; ${i}++) {`,
          `    const ${item} = ${expr}[${i}]`,
          ...this.value(shape.items, avro.items, item).map((line) => `    ${line}`),
          '  }',
          '}',
          'writeLong(0)',
        ]
      }
      case 'map': {
        if (typeof avro !== 'object' || avro.type !== 'map') throw new Error('map shape, not map schema')
        const keys = `k${this.variable++}`
        const key = `key${this.variable++}`
        const item = `x${this.variable++}`
        return [
          `if (!isPlainObject(${expr})) return false`,
          `const ${keys} = Object.keys(${expr})`,
          `if (${keys}.length > 0) {`,
          `  writeLong(${keys}.length)`,
          `  for (const ${key} of ${keys}) {`,
          `    const ${item} = ${expr}[${key}]`,
          `    writeString(${key})`,
          ...this.value(shape.values, avro.values, item).map((line) => `    ${line}`),
          '  }',
          '}',
          'writeLong(0)',
        ]
      }
    }
  }

  /** The index in helpers.records of the record's function, compiled on first use. */
  record(shape: RecordShape, schema: AvroRecordSchema): number {
    const known = this.compiled.get(shape)
    if (known !== undefined) return known
    const lines = [
      'if (!isPlainObject(value)) return false',
      'let present = 0 // known fields the object has as own keys (null included)',
      'let v',
    ]
    let extraWritten = false
    for (const field of schema.fields) {
      if (extraWritten) throw new Error(`${schema.name}: ${extraFieldsField} must be the last field`)
      const name = JSON.stringify(field.name)
      if (field.name === extraFieldsField) {
        this.helpers.knownSets.push(shape.known)
        const knownSet = `knownSets[${this.helpers.knownSets.length - 1}]`
        lines.push(
          // Every own key is a known field: nothing to carry (decided by a count, as validateToAvro).
          'if (keyCount(value) === present) writeUnionBranch(0)',
          'else {',
          `  const extra = extraJson(value, ${knownSet})`,
          '  if (extra === false) return false',
          '  if (extra === null) writeUnionBranch(0)',
          '  else {',
          '    writeUnionBranch(1)',
          '    writeString(extra)',
          '  }',
          '}',
        )
        extraWritten = true
        continue
      }
      const shapeField = shape.fields.find((candidate) => candidate.name === field.name)
      if (shapeField === undefined) {
        // Our ingestion metadata, from the second argument, written as the compiled writer writes it.
        const property = ingestProperty[field.name as keyof typeof ingestProperty]
        if (shape !== eventShape || property === undefined)
          throw new Error(
            `${schema.name}.${field.name}: neither in the payload's shape nor ingestion metadata`,
          )
        this.helpers.ingestWriters[field.name] = compileWrite(field.type)
        lines.push(`v = ingest.${property}`, `ingestWriters[${name}](v === undefined ? null : v)`)
        continue
      }
      if (shapeField.optional !== isUnion(field.type))
        throw new Error(`${schema.name}.${field.name}: optional in the shape but not a union, or back`)
      lines.push(
        `v = value[${name}]`,
        'if (v === undefined || v === null) {',
        '  if (v === null) present++',
        shapeField.optional ? '  writeUnionBranch(0)' : '  return false // required',
        '} else {',
        '  present++',
        ...this.value(shapeField.type, field.type, 'v').map((line) => `  ${line}`),
        '}',
      )
    }
    if (!extraWritten) throw new Error(`${schema.name}: no ${extraFieldsField}`)
    lines.push('return true')
    const helpers = this.helpers
    const build = new Function(
      'helpers',
      `const { ${Object.keys(helpers).join(', ')} } = helpers\n` +
        `return function checkWrite${schema.name}(value, ingest) {\n${lines.join('\n')}\n}`,
    )
    const index = helpers.records.length
    helpers.records.push(undefined as unknown as CheckWrite) // its place, before nested records take theirs
    this.compiled.set(shape, index)
    helpers.records[index] = build(helpers) as CheckWrite
    return index
  }
}

function compileEventCheckWrite(): CheckWrite {
  const generator = new Generator()
  return generator.helpers.records[generator.record(eventShape, eventAvroSchema)]!
}

const checkWriteEvent = compileEventCheckWrite()

// The reusable buffer the walk writes into; it grows to the largest event seen.
let scratch: Buffer = Buffer.allocUnsafeSlow(64 * 1024)

/** The message written up to `end`, copied out once (its header bytes left to write). */
function copyOut(buffer: Buffer, end: number): Buffer {
  const message = Buffer.allocUnsafe(end)
  buffer.copy(message, wireHeaderBytes, wireHeaderBytes, end)
  return message
}

/**
 * The payload's Avro record (with the ingestion metadata) as a new Buffer, after
 * wireHeaderBytes left for the wire header; undefined when the payload misfits the schema in
 * any way (then validateToAvro says how) or the writer would refuse it.
 */
export function encodeFittingEvent(payload: unknown, ingest: IngestMetadata): Buffer | undefined {
  return writeMessage(() => checkWriteEvent(payload, ingest))
}

/**
 * What `write` writes (with the avro-event-writer functions) as a new Buffer after
 * wireHeaderBytes left for the wire header, or undefined when it returns false. The reusable
 * buffer of the one walk, shared with json-avro-transcoder.ts (writing is synchronous).
 */
export function writeMessage(write: () => boolean): Buffer | undefined {
  startWriting(scratch, wireHeaderBytes)
  const done = write()
  const { buffer, end } = written()
  scratch = buffer // a larger one, if the event did not fit
  return done ? copyOut(buffer, end) : undefined
}

const writeRecord = compileWrite(eventAvroSchema)

/**
 * Every way the payload misfits the schema (validateToAvro's problems, paths spelt out), or none
 * and its Avro record as a new Buffer after wireHeaderBytes left for the wire header. Nearly
 * every event takes the one walk of encodeFittingEvent; a misfit is walked again to say why.
 */
export function validateAndEncode(
  payload: unknown,
  ingest: IngestMetadata,
): { problems: Problem[]; value?: Buffer } {
  const value = encodeFittingEvent(payload, ingest)
  if (value !== undefined) return { problems: [], value }
  const { problems, record } = validateToAvro(payload)
  if (problems.length > 0) return { problems }
  // Fits, yet the one walk stopped: the writer's own refusal (it throws, as it always did).
  return { problems, value: writeFramed(withIngest(record, ingest)) }
}

function writeFramed(record: AvroRecord): Buffer {
  startWriting(scratch, wireHeaderBytes)
  writeRecord(record)
  const { buffer, end } = written()
  scratch = buffer
  return copyOut(buffer, end)
}
