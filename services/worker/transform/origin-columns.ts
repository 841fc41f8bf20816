import type { Origin } from '../../../core/event/conversation-complete.types.ts'

// The conversation row's origin columns (migration 0020) from the record's origin: a webhook's
// record has none.
export function originColumns(origin: Origin | null | undefined) {
  return {
    origin_kind: origin?.kind ?? 'webhook',
    origin_framework: origin?.framework ?? null,
    origin_framework_version: origin?.framework_version ?? null,
    origin_mapping: origin?.mapping ?? null,
    origin_trace_id: origin?.trace_id ?? null,
    origin_complete: origin?.complete ?? null,
  }
}
