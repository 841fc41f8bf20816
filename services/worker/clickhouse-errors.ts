// Why a ClickHouse insert failed decides what the worker does: data the server refuses to parse
// or convert is the message's fault (find it and dead-letter it); anything else (server down,
// timeouts, too many parts, a missing table, refused credentials) is retried until it heals,
// with the partition paused and nothing committed.
const dataErrorCodes = new Set([
  6, // CANNOT_PARSE_TEXT
  26, // CANNOT_PARSE_QUOTED_STRING
  27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  38, // CANNOT_PARSE_DATE
  41, // CANNOT_PARSE_DATETIME
  53, // TYPE_MISMATCH
  69, // ARGUMENT_OUT_OF_BOUND
  70, // CANNOT_CONVERT_TYPE
  72, // CANNOT_PARSE_NUMBER
  117, // INCORRECT_DATA
  321, // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
  349, // CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
  457, // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE (bad cast)
])

/** Errors no retry will fix, for the log line that explains what to do. */
const configurationErrorCodes = new Set([
  60, // UNKNOWN_TABLE
  81, // UNKNOWN_DATABASE
  164, // READONLY
  192, // UNKNOWN_USER
  193, // WRONG_PASSWORD
  497, // ACCESS_DENIED
  516, // AUTHENTICATION_FAILED
])

function code(error: unknown): number | undefined {
  // @clickhouse/client puts the server's code in `code` (a string); chDB's raw insert in `clickhouseCode`.
  const failure = error as { code?: unknown; clickhouseCode?: unknown } | undefined
  const value = failure?.clickhouseCode ?? failure?.code
  const number = typeof value === 'string' ? Number(value) : typeof value === 'number' ? value : Number.NaN
  return Number.isInteger(number) ? number : undefined
}

export function isDataError(error: unknown): boolean {
  const found = code(error)
  return found !== undefined && dataErrorCodes.has(found)
}

export function isConfigurationError(error: unknown): boolean {
  const found = code(error)
  return found !== undefined && configurationErrorCodes.has(found)
}
