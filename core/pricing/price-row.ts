// One price of the prices table (migration 0011) as the CLI and the pricing rules see it, and the
// check of a single row on its own: which component takes which key and unit. The rules between
// rows (duplicates, overlaps, one currency) are in price-rules.ts.

export const priceComponents = ['telephony', 'stt', 'tts', 'llm', 'call_fee'] as const
export type PriceComponent = (typeof priceComponents)[number]

export const priceUnits = ['minute', 'turn', 'call'] as const
export type PriceUnit = (typeof priceUnits)[number]

export const directions = ['', 'inbound', 'outbound'] as const
export type Direction = (typeof directions)[number]

/** The fields of a price, in the order the prices table and the CSV file name them. */
export const priceFields = [
  'component',
  'telecom_provider',
  'direction',
  'agent_id',
  'unit',
  'price',
  'currency',
  'valid_from',
  'valid_to',
  'note',
] as const satisfies readonly (keyof PriceRow)[]

export interface PriceRow {
  component: PriceComponent
  /** telephony only; '' otherwise. */
  telecom_provider: string
  /** telephony only: '' applies to either direction. */
  direction: Direction
  /** stt, tts, llm, call_fee: '' applies to every agent. */
  agent_id: string
  unit: PriceUnit
  /** Per unit, as a decimal string (at most 6 fraction digits), so no float ever rounds it. */
  price: string
  currency: string
  /** Epoch milliseconds. */
  valid_from: number
  /** Epoch milliseconds, exclusive; undefined: until the next price of the same key. */
  valid_to?: number
  note: string
}

export class PriceRuleError extends Error {
  override name = 'PriceRuleError'
}

/** Which units each component may be priced in. */
const unitsOf: Record<PriceComponent, readonly PriceUnit[]> = {
  telephony: ['minute'],
  stt: ['minute', 'turn'],
  tts: ['minute', 'turn'],
  llm: ['minute', 'turn'],
  call_fee: ['call'],
}

const decimal = /^\d{1,12}(\.\d{1,6})?$/
const currencyCode = /^[A-Z]{3}$/

/** What identifies a price's series: rows of one key follow each other in time. */
export const priceKey = (row: PriceRow) =>
  [row.component, row.telecom_provider, row.direction, row.agent_id].join('|')

/** A readable name of the key, for messages. */
export function describeKey(row: PriceRow): string {
  if (row.component === 'telephony')
    return `telephony ${row.telecom_provider} ${row.direction === '' ? 'either direction' : row.direction}`
  return `${row.component} ${row.agent_id === '' ? 'every agent' : `agent ${row.agent_id}`}`
}

/** The problems of one row on its own (empty: none). */
export function rowProblems(row: PriceRow): string[] {
  const problems: string[] = []
  if (!priceComponents.includes(row.component))
    problems.push(`component must be one of ${priceComponents.join(', ')}, got "${row.component}"`)
  else if (!unitsOf[row.component].includes(row.unit))
    problems.push(
      `${row.component} is priced per ${unitsOf[row.component].join(' or per ')}, got "${row.unit}"`,
    )
  if (row.component === 'telephony') {
    if (row.telecom_provider === '') problems.push('telephony needs a telecom_provider')
    if (!directions.includes(row.direction))
      problems.push(`direction must be inbound, outbound or empty, got "${row.direction}"`)
    if (row.agent_id !== '') problems.push('telephony is priced by telecom_provider, not by agent_id')
  } else if (priceComponents.includes(row.component)) {
    if (row.telecom_provider !== '' || row.direction !== '')
      problems.push(`${row.component} is priced by agent_id, not by telecom_provider or direction`)
  }
  if (!decimal.test(row.price))
    problems.push(`price must be a non-negative decimal with at most 6 fraction digits, got "${row.price}"`)
  if (!currencyCode.test(row.currency))
    problems.push(`currency must be a three-letter code such as EUR, got "${row.currency}"`)
  if (!Number.isFinite(row.valid_from)) problems.push('valid_from is not a date-time')
  if (row.valid_to !== undefined) {
    if (!Number.isFinite(row.valid_to)) problems.push('valid_to is not a date-time')
    else if (row.valid_to <= row.valid_from) problems.push('valid_to must be after valid_from')
  }
  return problems
}

/**
 * A date-time of a price: ISO 8601 with a zone, or a bare date (midnight UTC). Anything else is
 * refused rather than read in the machine's time zone.
 */
export function parsePriceTime(text: string, field: string): number {
  const trimmed = text.trim()
  const withZone = /^\d{4}-\d{2}-\d{2}$/.test(trimmed)
    ? `${trimmed}T00:00:00Z`
    : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(trimmed)
      ? trimmed
      : undefined
  const ms = withZone === undefined ? Number.NaN : Date.parse(withZone)
  // Date.parse rolls 2026-02-30 over into March: the calendar date must read back as written.
  const dayExists =
    Number.isFinite(ms) &&
    new Date(Date.parse(`${trimmed.slice(0, 10)}T00:00:00Z`)).toISOString().startsWith(trimmed.slice(0, 10))
  if (!dayExists)
    throw new PriceRuleError(
      `${field} must be a date (2026-01-01) or an ISO 8601 date-time with a zone, got "${text}"`,
    )
  return ms
}
