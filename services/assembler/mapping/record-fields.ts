import type { HistoryItem, Origin } from '../../../core/event/conversation-complete.types.ts'
import type { AttributeMap } from '../../../core/otlp/otlp-attributes.ts'
import { stringAttribute } from '../../../core/otlp/otlp-attributes.ts'
import type { SpanView } from './trace-view.ts'

// What every mapping builds its ConversationComplete record with: span times (microseconds) as the
// record's ISO 8601 timestamps, the origin mark, and the history items in time order.

/** Microseconds since the epoch as ISO 8601 UTC with microseconds, as the platform writes them. */
export function isoMicros(us: number): string {
  const ms = Math.floor(us / 1000)
  const base = new Date(ms).toISOString() // YYYY-MM-DDTHH:MM:SS.mmmZ
  const extra = String(Math.floor(us - ms * 1000)).padStart(3, '0')
  return `${base.slice(0, 23)}${extra}Z`
}

export const secondsBetween = (fromUs: number, toUs: number): number => (toUs - fromUs) / 1e6

/**
 * The framework version, when the application says it: neither framework sends its own. A resource
 * attribute of the documented key wins, then the instrumentation scope's version (empty in the
 * pinned versions). Not service.version: that is the application's version.
 */
export const frameworkVersionKey = 'voice.framework.version'
export function frameworkVersion(resource: AttributeMap, scopeVersion: string | null): string | null {
  return stringAttribute(resource, frameworkVersionKey) ?? (scopeVersion || null)
}

/** A history item and the instant (µs) it is ordered by. */
export interface TimedItem {
  at: number
  /** Ties: lower first (a call before its output, a user message before the reply it starts). */
  rank: number
  item: HistoryItem
}

export function orderedHistory(items: TimedItem[]): HistoryItem[] {
  return items.sort((a, b) => a.at - b.at || a.rank - b.rank).map((timed) => timed.item)
}

/** Fields the schema has no place for, carried as the record's extra_fields_json (null when none). */
export function extraFieldsJson(fields: Record<string, unknown>): string | null {
  const kept = Object.fromEntries(Object.entries(fields).filter(([, value]) => value != null))
  return Object.keys(kept).length > 0 ? JSON.stringify(kept) : null
}

/** A conversation's start and end (µs): its root span's, else the first start and last end of its spans. */
export function conversationBounds(
  root: SpanView | null,
  spans: readonly SpanView[],
): { startUs: number; endUs: number } {
  if (root) return { startUs: root.span.start_time_us, endUs: root.span.end_time_us }
  let startUs = Number.POSITIVE_INFINITY
  let endUs = Number.NEGATIVE_INFINITY
  for (const view of spans) {
    startUs = Math.min(startUs, view.span.start_time_us)
    endUs = Math.max(endUs, view.span.end_time_us)
  }
  return { startUs, endUs }
}

/** The root span's ERROR status as the record's failure fields (a child's error is not the call's). */
export function rootFailure(root: SpanView | null, exceptionMessageKey: string) {
  if (root?.span.status_code !== 2) return { room_metadata: null, error_message: null }
  const error = root.span.status_message || stringAttribute(root.attributes, exceptionMessageKey) || 'error'
  return { room_metadata: { failed: true, error }, error_message: error }
}

export function originOf(
  framework: string,
  mapping: string,
  traceId: string,
  resource: AttributeMap,
  root: SpanView | null,
): Origin {
  return {
    kind: 'otlp',
    framework,
    framework_version: frameworkVersion(resource, root?.span.scope_version ?? null),
    mapping,
    trace_id: traceId,
    complete: root !== null,
  }
}
