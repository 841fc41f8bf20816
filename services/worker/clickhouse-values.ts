import { checkTimestamp, commonFormEpochMs } from '../core/event/storable-timestamp.ts'
import { TransformError } from './transform-error.ts'

// Values as ClickHouse columns take them: DateTime64(3) as epoch milliseconds, Float64 only when
// finite. Timestamps follow the ingress's own definition (core/event/storable-timestamp.ts), so
// whatever the ingress accepted is stored; anything else (an event from before that rule, or
// produced by another writer) is a TransformError naming the field. A field of a history item is
// named by its index and name, and its path only built for the error: these run ~10 times per item.
const fieldPath = (field: string, item: number | undefined) =>
  item === undefined ? field : `data.history[${item}].${field}`

/** `field`: the value's path, or with `item` its path inside that history item. */
export function timestampMs(value: string | null | undefined, field: string, item?: number): number | null {
  if (value === null || value === undefined) return null
  // The common form without checkTimestamp's result object; anything else (and every refusal) by it.
  const epochMs = commonFormEpochMs(value, true)
  if (!Number.isNaN(epochMs)) return epochMs
  const timestamp = checkTimestamp(value)
  if (!timestamp.ok)
    throw new TransformError(
      fieldPath(field, item),
      `${timestamp.problem}: ${JSON.stringify(value.slice(0, 60))}`,
    )
  return timestamp.epochMs
}

/** `field`: the value's path, or with `item` its path inside that history item. */
export function finiteNumber(value: number | null | undefined, field: string, item?: number): number | null {
  if (value === null || value === undefined) return null
  if (!Number.isFinite(value))
    throw new TransformError(fieldPath(field, item), `not a finite number: ${value}`)
  return value
}
