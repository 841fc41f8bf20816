import { TransformError } from './transform-error.ts'

// Values as ClickHouse columns take them: DateTime64(3) as epoch milliseconds (sub-millisecond
// digits truncated), Float64 only when finite. Anything else is a TransformError naming the field.
// DateTime64 holds 1900-01-01 to 2299-12-31.
const earliestMs = Date.UTC(1900, 0, 1)
const latestMs = Date.UTC(2300, 0, 1) - 1

export function timestampMs(value: string | null | undefined, path: string): number | null {
  if (value === null || value === undefined) return null
  const ms = Date.parse(value)
  if (Number.isNaN(ms))
    throw new TransformError(path, `not an ISO 8601 date-time: ${JSON.stringify(value.slice(0, 60))}`)
  if (ms < earliestMs || ms > latestMs) throw new TransformError(path, `outside 1900..2299: ${value}`)
  return ms
}

export function finiteNumber(value: number | null | undefined, path: string): number | null {
  if (value === null || value === undefined) return null
  if (!Number.isFinite(value)) throw new TransformError(path, `not a finite number: ${value}`)
  return value
}
