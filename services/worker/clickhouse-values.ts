import { checkTimestamp } from '../core/event/storable-timestamp.ts'
import { TransformError } from './transform-error.ts'

// Values as ClickHouse columns take them: DateTime64(3) as epoch milliseconds, Float64 only when
// finite. Timestamps follow the ingress's own definition (core/event/storable-timestamp.ts), so
// whatever the ingress accepted is stored; anything else (an event from before that rule, or
// produced by another writer) is a TransformError naming the field.
export function timestampMs(value: string | null | undefined, path: string): number | null {
  if (value === null || value === undefined) return null
  const timestamp = checkTimestamp(value)
  if (!timestamp.ok)
    throw new TransformError(path, `${timestamp.problem}: ${JSON.stringify(value.slice(0, 60))}`)
  return timestamp.epochMs
}

export function finiteNumber(value: number | null | undefined, path: string): number | null {
  if (value === null || value === undefined) return null
  if (!Number.isFinite(value)) throw new TransformError(path, `not a finite number: ${value}`)
  return value
}
