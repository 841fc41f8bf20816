// `voice-analytics replay --from <time|offset>`: where each partition starts, how far it goes
// (the end offsets when the replay starts), and the progress line. Pure.
export type ReplayFrom =
  | { kind: 'earliest' }
  | { kind: 'offset'; offset: bigint }
  | { kind: 'time'; ms: number }

export class ReplayArgumentError extends Error {
  override name = 'ReplayArgumentError'
}

export function parseReplayFrom(text: string): ReplayFrom {
  const value = text.trim()
  if (value === 'earliest' || value === 'beginning') return { kind: 'earliest' }
  if (/^\d+$/.test(value)) return { kind: 'offset', offset: BigInt(value) }
  const ms = Date.parse(value)
  if (Number.isNaN(ms))
    throw new ReplayArgumentError(
      `--from must be "earliest", an offset (e.g. 1200) or an ISO 8601 time (e.g. 2026-03-01T00:00:00Z), got ${JSON.stringify(text)}`,
    )
  return { kind: 'time', ms }
}

export interface PartitionRange {
  partition: number
  /** First offset to read. */
  start: bigint
  /** The high watermark when the replay started: read up to here. */
  end: bigint
}

/** Offsets are bigint: no Math.min/max. */
function clampOffset(offset: bigint, low: bigint, high: bigint): bigint {
  if (offset < low) return low
  if (offset > high) return high
  return offset
}

/** Start offsets clamped into [low, high]; for a time, the offsets Kafka found for it. */
export function startOffset(from: ReplayFrom, low: bigint, high: bigint, atTime?: bigint): bigint {
  const clamp = (offset: bigint) => clampOffset(offset, low, high)
  if (from.kind === 'earliest') return low
  if (from.kind === 'offset') return clamp(from.offset)
  return atTime === undefined || atTime < 0n ? high : clamp(atTime)
}

export function replayTotals(
  ranges: readonly PartitionRange[],
  committed: ReadonlyMap<number, bigint>,
): {
  done: bigint
  total: bigint
} {
  let done = 0n
  let total = 0n
  for (const range of ranges) {
    total += range.end - range.start
    const at = committed.get(range.partition) ?? range.start
    done += clampOffset(at, range.start, range.end) - range.start
  }
  return { done, total }
}

export function progressLine(done: bigint, total: bigint, perSecond: number, width = 30): string {
  const fraction = total === 0n ? 1 : Number(done) / Number(total)
  const filled = Math.round(fraction * width)
  const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`
  return `[${bar}] ${Math.floor(fraction * 100)}% ${done}/${total} messages, ${Math.round(perSecond)}/s`
}
