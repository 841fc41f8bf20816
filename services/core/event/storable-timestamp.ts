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
export type TimestampCheck = { ok: true; epochMs: number } | { ok: false; problem: string }

/** DateTime64's range: 1900-01-01T00:00:00.000Z to 2299-12-31T23:59:59.999Z. */
export const earliestStorableMs = Date.UTC(1900, 0, 1)
export const latestStorableMs = Date.UTC(2300, 0, 1) - 1

const shape =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/

const daysInMonth = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31

const outsideRange = 'outside 1900..2299 (UTC), the range ClickHouse DateTime64 holds'
const fail = (problem: string): TimestampCheck => ({ ok: false, problem })

export function checkTimestamp(text: string): TimestampCheck {
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
