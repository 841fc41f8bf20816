// How a seed database's conversations become many: one INSERT … SELECT per table and batch of
// copies, generic over the schema (the columns come from system.columns), so tables other branches
// add are copied too. Each copy of a conversation gets a new session id and one time shift, both
// derived from (session_id, copy) alone: the same conversation copy gets the same id and the same
// shift in every table, so joins and FINAL see whole conversations. Shifts are whole minutes
// (rollups keyed by the minute stay aligned). Pure: the statements are text, unit-tested as such.

export interface ColumnInfo {
  name: string
  type: string
  /** system.columns default_kind: '', DEFAULT, MATERIALIZED, ALIAS, EPHEMERAL. */
  defaultKind: string
}

export interface CopyPlan {
  sourceDatabase: string
  targetDatabase: string
  table: string
  columns: readonly ColumnInfo[]
  /** Copies [firstCopy, endCopy) of every source row. */
  firstCopy: number
  endCopy: number
  /** Seconds added to every seed time before the copy's own shift (moves the seed to the window's start). */
  baseShiftSeconds: number
  /** Copies are spread uniformly over this many minutes after the base shift. */
  spreadMinutes: number
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/
const checked = (name: string) => {
  if (!identifier.test(name)) throw new Error(`not a plain identifier: ${JSON.stringify(name)}`)
  return name
}

/** DateTime / DateTime64, possibly Nullable or LowCardinality: shifted. Time types nested deeper: refused. */
export function isTimeColumn(type: string): boolean {
  const bare = type.replace(/^(LowCardinality\()?(Nullable\()?/, '')
  if (/^DateTime(64)?\b/.test(bare)) return true
  if (/DateTime/.test(type))
    throw new Error(`a time type this copy cannot shift (nested in ${type}): teach scaled-copy-sql.ts`)
  return false
}

/** The new session id of a copy: a UUID-shaped hash of (session_id, copy), as long as the original. */
export const copiedSessionId = "toString(reinterpretAsUUID(MD5(concat(session_id, '#', toString(copy)))))"

/** Seconds a copy's rows move: the base shift plus whole minutes hashed from (session_id, copy). */
export const copyShiftSeconds = (plan: Pick<CopyPlan, 'baseShiftSeconds' | 'spreadMinutes'>) =>
  `(${Math.trunc(plan.baseShiftSeconds)} + 60 * toInt64(cityHash64(session_id, copy) % ${Math.trunc(plan.spreadMinutes)}))`

/** The INSERT … SELECT of one batch of copies of one table. */
export function copyStatement(plan: CopyPlan): string {
  if (!plan.columns.some((column) => column.name === 'session_id'))
    throw new Error(`${plan.table} has no session_id: not a conversation table`)
  if (!(plan.endCopy > plan.firstCopy)) throw new Error(`no copies in [${plan.firstCopy}, ${plan.endCopy})`)
  const stored = plan.columns.filter(
    (column) => !['MATERIALIZED', 'ALIAS', 'EPHEMERAL'].includes(column.defaultKind),
  )
  const shift = copyShiftSeconds(plan)
  const select = stored.map(({ name, type }) => {
    const column = checked(name)
    if (column === 'session_id') return `${copiedSessionId} AS session_id`
    if (isTimeColumn(type)) return `${column} + toIntervalSecond(${shift}) AS ${column}`
    return column
  })
  const table = checked(plan.table)
  return [
    `INSERT INTO ${checked(plan.targetDatabase)}.${table} (${stored.map((column) => column.name).join(', ')})`,
    `SELECT ${select.join(', ')}`,
    `FROM ${checked(plan.sourceDatabase)}.${table}`,
    `ARRAY JOIN range(${Math.trunc(plan.firstCopy)}, ${Math.trunc(plan.endCopy)}) AS copy`,
  ].join('\n')
}

export interface TableInfo {
  name: string
  engine: string
  /** Target of a materialized view (… TO db.table), else undefined. */
  viewTarget?: string | undefined
  /** Tables a materialized view reads (system.tables dependencies of the source). */
  viewSources?: readonly string[]
}

/** Tables without session_id that the build recomputes from the copies (scaled-database.ts). */
export const recomputedAfterCopy = new Set(['agent_latency_hour'])
/** Reference and bookkeeping tables (not per conversation): copied once, as they are (agent_versions: the copies keep their fingerprints). */
export const copiedAsTheyAre = new Set(['prices', 'erasures', 'forgotten_sessions', 'agent_versions'])

/**
 * The tables to copy: MergeTree tables holding conversations (a session_id column), minus those a
 * materialized view fills from a table that is itself copied (the view fills them as the copy goes
 * in; copying them too would count twice). Null tables and views hold nothing to copy. A MergeTree
 * table without session_id that no view fills (other than the migrations' record) cannot be copied
 * per conversation: refused by name, rather than left empty for its panels to read fast.
 */
export function tablesToCopy(
  tables: readonly TableInfo[],
  hasSessionId: (table: string) => boolean,
): string[] {
  const mergeTrees = tables.filter((table) => table.engine.endsWith('MergeTree'))
  const copied = new Set(mergeTrees.filter((table) => hasSessionId(table.name)).map((table) => table.name))
  const filledByViews = new Set(
    tables
      .filter((table) => table.viewTarget && (table.viewSources ?? []).some((source) => copied.has(source)))
      .map((table) => table.viewTarget!),
  )
  const uncopiable = mergeTrees
    .map((table) => table.name)
    .filter(
      (name) =>
        !copied.has(name) &&
        !filledByViews.has(name) &&
        !recomputedAfterCopy.has(name) &&
        !copiedAsTheyAre.has(name) &&
        name !== 'schema_migrations',
    )
  if (uncopiable.length > 0)
    throw new Error(
      `no session_id to copy these tables by: ${uncopiable.join(', ')} (teach scaled-copy-sql.ts)`,
    )
  return [...copied].filter((table) => !filledByViews.has(table)).sort()
}
