// The errors of the ClickHouse concern, in one place: those core/clickhouse throws (classes,
// recognised by instanceof, or by `code` where ClickHouse's own code is meant), and what an error
// of the server is for the worker's write (classifyClickHouseError below).

/** A migration statement the cluster form does not know: wrong DDL is never emitted silently. */
export class ClusterDdlError extends Error {
  override name = 'ClusterDdlError'
}

/** The migrations cannot run as they are (a misnamed or changed file, a refused statement): no retry helps. */
export class MigrationError extends Error {
  override name = 'MigrationError'
}

/** A value its Native column cannot hold; `code` is ClickHouse's code for it (data, below). */
export class NativeValueError extends Error {
  override name = 'NativeValueError'
  readonly code: number
  constructor(message: string, code: number) {
    super(message)
    this.code = code
  }
}

/** The embedded data directory is held by another process (a worker, `npm run dev`). */
export class ClickHouseBusyError extends Error {
  override name = 'ClickHouseBusyError'
}

/** Analysts' SQL that is not a read of the pipeline's tables (read-only-sql-check.ts). */
export class ReadOnlyQueryRefused extends Error {
  override name = 'ReadOnlyQueryRefused'
}

// Why a ClickHouse insert failed decides what the worker does with the write:
// - transient: the server, the network or the operator's setup (down, timeouts, too many parts
//   waiting for merges, a missing table, refused credentials) — retry with backoff, consumption
//   paused, nothing committed, until it heals;
// - shape: the write is refused for its size or spread (more partitions than one insert may
//   touch, too many rows or bytes) — split it: by ClickHouse partition, then message by message;
// - data: the server refuses to parse or convert a value — the message's fault: find it (write
//   message by message) and dead-letter it, its neighbours are stored.
// Unknown codes and errors without a code are transient: retrying loses nothing, and a worker
// that stays stuck says so (/healthz, worker_stalled, the WorkerStalled alert).
export type ClickHouseErrorClass = 'transient' | 'shape' | 'data'

export interface ClickHouseErrorKind {
  class: ClickHouseErrorClass
  code: number | undefined
  /** A transient error that only an operator can end (missing table, credentials, read-only). */
  needsOperator: boolean
}

const dataErrorCodes = new Set([
  6, // CANNOT_PARSE_TEXT
  25, // CANNOT_PARSE_ESCAPE_SEQUENCE
  26, // CANNOT_PARSE_QUOTED_STRING
  27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  38, // CANNOT_PARSE_DATE
  41, // CANNOT_PARSE_DATETIME
  53, // TYPE_MISMATCH
  69, // ARGUMENT_OUT_OF_BOUND
  70, // CANNOT_CONVERT_TYPE
  72, // CANNOT_PARSE_NUMBER
  117, // INCORRECT_DATA
  128, // TOO_LARGE_ARRAY_SIZE
  131, // TOO_LARGE_STRING_SIZE
  190, // SIZES_OF_ARRAYS_DONT_MATCH
  321, // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
  349, // CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
  457, // BAD_QUERY_PARAMETER (a value that does not fit its type)
  469, // VIOLATED_CONSTRAINT
  691, // UNKNOWN_ELEMENT_OF_ENUM
])

const shapeErrorCodes = new Set([
  158, // TOO_MANY_ROWS
  307, // TOO_MANY_BYTES
  396, // TOO_MANY_ROWS_OR_BYTES
])

const configurationErrorCodes = new Set([
  60, // UNKNOWN_TABLE
  81, // UNKNOWN_DATABASE
  164, // READONLY
  192, // UNKNOWN_USER
  193, // WRONG_PASSWORD
  497, // ACCESS_DENIED
  516, // AUTHENTICATION_FAILED
])

// 252 (TOO_MANY_PARTS) is two errors: "Too many parts" waits for merges (transient), "Too many
// partitions for single INSERT block" (max_partitions_per_insert_block) is the write's shape.
const tooManyParts = 252
const tooManyPartitionsText = /too many partitions for single insert block/i

function errorCode(error: unknown): number | undefined {
  // @clickhouse/client puts the server's code in `code` (a string); chDB's raw insert in `clickhouseCode`.
  const failure = error as { code?: unknown; clickhouseCode?: unknown } | undefined
  const value = failure?.clickhouseCode ?? failure?.code
  const number = typeof value === 'string' ? Number(value) : typeof value === 'number' ? value : Number.NaN
  return Number.isInteger(number) ? number : undefined
}

export function classifyClickHouseError(error: unknown): ClickHouseErrorKind {
  const code = errorCode(error)
  const message = String((error as { message?: unknown } | undefined)?.message ?? '')
  const kind = (errorClass: ClickHouseErrorClass, needsOperator = false) => ({
    class: errorClass,
    code,
    needsOperator,
  })
  if (code === undefined) return kind('transient')
  if (dataErrorCodes.has(code)) return kind('data')
  if (shapeErrorCodes.has(code)) return kind('shape')
  if (code === tooManyParts && tooManyPartitionsText.test(message)) return kind('shape')
  return kind('transient', configurationErrorCodes.has(code))
}
