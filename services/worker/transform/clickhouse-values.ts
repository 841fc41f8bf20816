import { checkTimestamp, commonFormEpochMs } from '../../../core/event/storable-timestamp.ts'
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

const float32Max = 3.4028234663852886e38

/**
 * A measured value as it is stored (#23): rounded to Float32's precision (a 24-bit significand, within
 * 6e-8 of the value: 0.3 µs of a 5 s latency) and kept as a Float64. The low 29 bits of every stored
 * value are then zero, which ZSTD compresses to ~60 % of the unrounded column; the column type, and
 * every value a query returns, stay Float64. A magnitude beyond Float32's range is kept as it came
 * rather than made infinite. Rounded here, before the metric flags and the rollups read the row, so
 * every figure is computed from the stored value; migration 0016 rounds the rows stored before it the
 * same way (toFloat32 rounds to nearest, as Math.fround).
 */
export function measuredValue(value: number | null | undefined, field: string, item?: number): number | null {
  const finite = finiteNumber(value, field, item)
  if (finite === null || Math.abs(finite) > float32Max) return finite
  return Math.fround(finite)
}
