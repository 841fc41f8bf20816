import { ReadOnlyQueryRefused } from './clickhouse-errors.ts'

// Analysts' SQL may read the pipeline's tables and nothing else: no files, no network, no other
// databases, no writes. The engine's `readonly = 1` already refuses writes, DDL, settings changes
// and table functions that read files or the network (file, url, s3, remote, ...), but not the
// scalar `file()`, `INTO OUTFILE`, or `DESCRIBE file(...)` (which infers a schema from the file).
// So every query is also checked on the engine's own parse (EXPLAIN AST) against allowlists:
// the statement kinds, the table functions, and the functions (by the engine's own categories).
// Pure: the AST text and the function catalog come from the engine; the decision is made here.

export interface AstLine {
  depth: number
  /** The node's type, e.g. SelectWithUnionQuery, Function, TableExpression, Literal, Set. */
  type: string
  /** What follows the type, e.g. a function's name, without ` (alias x)` and ` (children n)`. */
  detail: string
}

export interface FunctionEntry {
  name: string
  alias_to: string
  categories: string
  case_insensitive: number | boolean
  is_aggregate: number | boolean
}

export interface FunctionCatalog {
  functions: readonly FunctionEntry[]
  /** Aggregate function combinators (If, Merge, State, ...): system.aggregate_function_combinators. */
  combinators: readonly string[]
}

/** Statements that only read: SELECT/WITH (SelectWithUnionQuery), SHOW, DESCRIBE, EXPLAIN. */
const statementKinds = new Set(['SelectWithUnionQuery', 'ShowTables', 'ShowColumns', 'DescribeQuery'])
const isStatementKind = (type: string) => statementKinds.has(type) || type.startsWith('ShowCreate')

/** Table functions that make rows out of thin air; every other one (file, url, s3, remote, mysql, ...) is refused. */
export const allowedTableFunctions = new Set([
  'numbers',
  'numbers_mt',
  'zeros',
  'zeros_mt',
  'generate_series',
  'generateSeries',
  'generateRandom',
  'values',
])

/** Categories of system.functions whose functions compute on their arguments only. */
export const allowedCategories = new Set([
  'Aggregate Functions',
  'Arithmetic',
  'Arrays',
  'Bit',
  'Bitmap',
  'Comparison',
  'Conditional',
  'Dates and Times',
  'Distance',
  'Encoding',
  'Encryption',
  'Financial',
  'Geo',
  'Geo Polygon',
  'Hash',
  'IP Address',
  'JSON',
  'Logical',
  'Map',
  'Mathematical',
  'Null',
  'NumericIndexedVector',
  'QBit',
  'Random Number',
  'Rounding',
  'String',
  'String Replacement',
  'String Search',
  'String Splitting',
  'Time Series',
  'Time Window',
  'Tuple',
  'Type Conversion',
  'URL',
  'UUID',
])

/**
 * Functions outside those categories that are harmless and used in analysts' SQL; the parser's own
 * forms (lambda, EXISTS, CASE x WHEN). The rest of 'Other' (file, hasColumnInTable, showCertificate,
 * getServerSetting, ...), AI, dictionaries, introspection and machine-learning models are refused.
 */
export const allowedFunctions = new Set([
  'lambda',
  'exists',
  'caseWithExpression',
  'grouping',
  'untuple',
  'toTypeName',
  'toColumnTypeName',
  'formatReadableSize',
  'formatReadableDecimalSize',
  'formatReadableQuantity',
  'formatReadableTimeDelta',
  'parseReadableSize',
  'parseReadableSizeOrNull',
  'parseReadableSizeOrZero',
  'parseTimeDelta',
  'bar',
  'transform',
  'identity',
  'ignore',
  'materialize',
  'isConstant',
  'currentDatabase',
  'version',
  'byteSize',
  'countDigits',
  'digits',
  'throwIf',
  'runningDifference',
  'runningDifferenceStartingWithFirstValue',
  'runningAccumulate',
  'neighbor',
  'finalizeAggregation',
  'initializeAggregation',
  'getSubcolumn',
  'variantElement',
  'variantType',
  'visibleWidth',
  'rowNumberInBlock',
  'rowNumberInAllBlocks',
  'blockSize',
  'isDecimalOverflow',
  'defaultValueOfArgumentType',
  'defaultValueOfTypeName',
  'getSizeOfEnumType',
  'dumpColumnStructure',
  'errorCodeToName',
  'indexHint',
  'MACNumToString',
  'MACStringToNum',
  'MACStringToOUI',
])

const outOfThinAir = 'the SQL endpoint reads the pipeline tables only'

/**
 * The lines of `EXPLAIN AST` output as nodes. A string literal may hold newlines, so a line can be
 * text of a literal made to look like a node: the checks below only ever refuse more because of
 * such a line, never less (every real line is still seen with its own depth and text).
 */
export function parseExplainAst(text: string): AstLine[] {
  const lines: AstLine[] = []
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue
    const depth = raw.length - raw.trimStart().length
    const body = raw.trim()
    const space = body.indexOf(' ')
    const type = space < 0 ? body : body.slice(0, space)
    const rest = space < 0 ? '' : body.slice(space + 1)
    const detail = ` ${rest}`
      .replace(/ \(children \d+\)$/, '')
      .replace(/ \(alias [^)]*\)$/, '')
      .trim()
    lines.push({ depth, type, detail })
  }
  return lines
}

interface ResolvedCatalog {
  exact: Map<string, FunctionEntry>
  lowerCase: Map<string, FunctionEntry>
  combinators: string[]
}

function resolveCatalog(catalog: FunctionCatalog): ResolvedCatalog {
  const exact = new Map(catalog.functions.map((entry) => [entry.name, entry]))
  const lowerCase = new Map(
    catalog.functions
      .filter((entry) => Boolean(Number(entry.case_insensitive)))
      .map((entry) => [entry.name.toLowerCase(), entry]),
  )
  // Longest first: `OrDefault` before `Default`-like shorter suffixes, `SimpleState` before `State`.
  const combinators = [...catalog.combinators].sort((a, b) => b.length - a.length)
  return { exact, lowerCase, combinators }
}

function lookup(name: string, catalog: ResolvedCatalog): FunctionEntry | undefined {
  const entry = catalog.exact.get(name) ?? catalog.lowerCase.get(name.toLowerCase())
  if (entry?.alias_to) return catalog.exact.get(entry.alias_to) ?? entry
  return entry
}

const isAggregate = (entry: FunctionEntry) =>
  Boolean(Number(entry.is_aggregate)) || entry.categories === 'Aggregate Functions'

function functionAllowed(name: string, catalog: ResolvedCatalog): boolean {
  if (allowedFunctions.has(name)) return true
  const entry = lookup(name, catalog)
  if (entry) return allowedFunctions.has(entry.name) || allowedCategories.has(entry.categories)
  // An aggregate with combinators (countIf, uniqExactMerge, sumArrayIf): its base must be an aggregate.
  let base = name
  for (let stripped = true; stripped; ) {
    stripped = false
    for (const combinator of catalog.combinators) {
      if (base.length > combinator.length && base.endsWith(combinator)) {
        base = base.slice(0, -combinator.length)
        stripped = true
        const found = lookup(base, catalog)
        if (found) return isAggregate(found) && allowedCategories.has(found.categories)
        break
      }
    }
  }
  return false
}

/** Why the query is refused, or undefined when it only reads the pipeline's tables. */
export function readOnlyRefusal(ast: readonly AstLine[], catalog: FunctionCatalog): string | undefined {
  const root = ast[0]
  if (!root) return 'no statement'
  const explained = root.type === 'Explain' ? ast[1] : root
  if (!explained || !isStatementKind(explained.type))
    return `the session is readonly: only SELECT, WITH, SHOW, DESCRIBE and EXPLAIN are answered, not ${explained?.type ?? root.type}`
  const resolved = resolveCatalog(catalog)
  for (const [index, line] of ast.entries()) {
    // A literal right under the statement (or under the explained one) is INTO OUTFILE's file name.
    if (line.type === 'Literal' && (line.depth === 1 || (root.type === 'Explain' && line.depth === 2)))
      return 'INTO OUTFILE is not allowed: results go back to the caller only'
    if (line.type !== 'Function') continue
    const name = line.detail
    const previous = ast[index - 1]
    const isTableFunction = previous?.type === 'TableExpression' && previous.depth === line.depth - 1
    if (isTableFunction) {
      if (!allowedTableFunctions.has(name))
        return `table function ${name}() is not allowed: ${outOfThinAir} (no files, network or other databases)`
    } else if (!functionAllowed(name, resolved)) {
      return `function ${name}() is not allowed: ${outOfThinAir} (no files, network, dictionaries or server internals)`
    }
  }
  return undefined
}

/** Output formats are names (PrettyCompact, JSONEachRow, ...); anything else is refused. */
export function checkFormatName(format: string): void {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(format))
    throw new ReadOnlyQueryRefused(`"${format}" is not an output format name`)
}
