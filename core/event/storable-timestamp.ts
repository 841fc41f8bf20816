// The one definition of a timestamp the pipeline takes: the ingress accepts exactly what this
// module accepts, and the worker stores exactly what it returns, so an event answered
// `accepted` can always be written to ClickHouse. (Before, the ingress checked a pattern and
// the worker Date.parse, which shifts Feb 31 to Mar 3 and refuses what DateTime64 cannot hold,
// dead-lettering conversations the platform had been told were accepted.)
//
// Accepted: ISO 8601 date-time with a zone — `YYYY-MM-DD`, `T`/`t`/space, `hh:mm[:ss[.f]]`,
// `Z`/`z` or `±hh:mm`/`±hhmm` — that names a real calendar date, 0 to 9 fraction digits, and
// lies (after the offset) within what ClickHouse DateTime64(3, 'UTC') holds. Sub-millisecond
// digits are truncated, as DateTime64(3) does. Pure: no I/O, no Date.parse.
//
// Every history item carries timestamps, so this runs ~100 times per event: the common form
// (`YYYY-MM-DDThh:mm:ss[.f]` with `Z` or `±hh:mm`, a year well inside the range) is decided by
// reading character codes, without the regular expression or its match array (~8% of the
// ingress's CPU before). Anything else, and every refusal, goes through the full check below,
// which alone words the problems; a unit test holds both paths to the same answers.
export type TimestampCheck = { ok: true; epochMs: number } | { ok: false; problem: string }

/** DateTime64's range: 1900-01-01T00:00:00.000Z to 2299-12-31T23:59:59.999Z. */
export const earliestStorableMs = Date.UTC(1900, 0, 1)
export const latestStorableMs = Date.UTC(2300, 0, 1) - 1

const shape =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
const monthDays = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const daysInMonth = (year: number, month: number): number =>
  month === 2 && isLeapYear(year) ? 29 : monthDays[month]!

/**
 * Text read by its character codes: a string, or a view of a JSON body's bytes whose toString()
 * is their Latin-1 text (json-avro-transcoder.ts: no string is made for the common form). Past
 * the end, charCodeAt gives NaN, as a string's does.
 */
export interface CharCodes {
  readonly length: number
  charCodeAt(index: number): number
}

/** The value of two ASCII digits at `at`, or -1 when either is not one. */
function twoDigits(text: CharCodes, at: number): number {
  const tens = text.charCodeAt(at) - 48
  const ones = text.charCodeAt(at + 1) - 48
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : -1
}

// Years whose every instant, at any offset up to ±23:59, lies inside DateTime64's range.
const safeFirstYear = 1901
const safeLastYear = 2298

/**
 * The common form, decided from character codes: the epoch milliseconds (0 unless `wantEpoch`)
 * when it is that form and storable, NaN when the full check must decide (another form, or
 * anything wrong). It never accepts what the full check refuses.
 */
export function commonFormEpochMs(text: CharCodes, wantEpoch: boolean): number {
  const length = text.length
  if (length < 20 || length > 35) return Number.NaN
  const century = twoDigits(text, 0)
  const yearInCentury = twoDigits(text, 2)
  const month = twoDigits(text, 5)
  const day = twoDigits(text, 8)
  const hour = twoDigits(text, 11)
  const minute = twoDigits(text, 14)
  const second = twoDigits(text, 17)
  const separator = text.charCodeAt(10)
  if (
    (century | yearInCentury | month | day | hour | minute | second) < 0 ||
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    (separator !== 84 && separator !== 116 && separator !== 32) || // T t space
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58
  )
    return Number.NaN
  const year = century * 100 + yearInCentury
  if (year < safeFirstYear || year > safeLastYear || month < 1 || month > 12) return Number.NaN
  if (day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return Number.NaN
  let at = 19
  let millis = 0
  if (text.charCodeAt(at) === 46) {
    // . then 1..9 digits; the first three are the milliseconds
    const start = ++at
    for (let code = text.charCodeAt(at); code >= 48 && code <= 57; code = text.charCodeAt(++at))
      if (at - start < 3) millis = millis * 10 + (code - 48)
    const digits = at - start
    if (digits === 0 || digits > 9) return Number.NaN
    if (digits < 3) millis *= digits === 1 ? 100 : 10
  }
  let offsetMinutes = 0
  const zone = text.charCodeAt(at)
  if (zone === 90 || zone === 122) {
    // Z z
    if (at + 1 !== length) return Number.NaN
  } else if (zone === 43 || zone === 45) {
    // + - hh:mm
    const offsetHours = twoDigits(text, at + 1)
    const offsetMins = twoDigits(text, at + 4)
    if (at + 6 !== length || text.charCodeAt(at + 3) !== 58 || offsetHours < 0 || offsetMins < 0)
      return Number.NaN
    if (offsetHours > 23 || offsetMins > 59) return Number.NaN
    offsetMinutes = (zone === 45 ? -1 : 1) * (offsetHours * 60 + offsetMins)
  } else return Number.NaN
  if (!wantEpoch) return 0
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000
}

const outsideRange = 'outside 1900..2299 (UTC), the range ClickHouse DateTime64 holds'
const fail = (problem: string): TimestampCheck => ({ ok: false, problem })

export function checkTimestamp(text: string): TimestampCheck {
  const epochMs = commonFormEpochMs(text, true)
  return Number.isNaN(epochMs) ? checkTimestampFully(text) : { ok: true, epochMs }
}

/** What is wrong with a timestamp, or undefined when it is storable (no allocation then). */
export function timestampProblem(text: string | CharCodes): string | undefined {
  if (!Number.isNaN(commonFormEpochMs(text, false))) return undefined
  const check = checkTimestampFully(String(text))
  return check.ok ? undefined : check.problem
}

/** Every rule, by the regular expression: the reference the common-form path is tested against. */
export function checkTimestampFully(text: string): TimestampCheck {
  const match = shape.exec(text)
  if (!match) return fail('expected an ISO 8601 date-time with a time zone')
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, offsetH, offsetM] = match
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h)
  const minute = Number(mi)
  const second = s === undefined ? 0 : Number(s)
  if (month < 1 || month > 12) return fail(`no month ${mo}`)
  if (day < 1 || day > daysInMonth(year, month)) return fail(`no such date: ${y}-${mo}-${d}`)
  if (hour > 23 || minute > 59) return fail(`no such time of day: ${h}:${mi}`)
  if (second === 60) return fail('leap second (:60) cannot be stored')
  if (second > 59) return fail(`no such second: ${s}`)
  if (fraction !== undefined && fraction.length > 9) return fail('more than 9 fraction digits')
  let offsetMinutes = 0
  if (zulu === undefined) {
    const hours = Number(offsetH)
    const minutes = Number(offsetM)
    if (hours > 23 || minutes > 59) return fail(`no such offset: ${sign}${offsetH}:${offsetM}`)
    offsetMinutes = (sign === '-' ? -1 : 1) * (hours * 60 + minutes)
  }
  // Years 0..99 would be read as 1900..1999 by Date.UTC; they are out of range anyway.
  if (year < 1899 || year > 2300) return fail(outsideRange)
  const millis = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'))
  const epochMs = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000
  if (epochMs < earliestStorableMs || epochMs > latestStorableMs) return fail(outsideRange)
  return { ok: true, epochMs }
}
