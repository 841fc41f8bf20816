import { filters } from './clickhouse-filters.ts'
import { database } from './panel-sql.ts'

// Where the conversations in range came from (#34): each source, by way of the webhook or of
// OpenTelemetry spans of an open framework (origin_* columns, migration 0020), with what tells a
// reader whether to trust them: conversations assembled without their root span (origin_complete
// false: the trace's root never came, so its end and some turns may be missing), failed rooms, and
// the median of the calls' median end-to-end latency. Shown on the Voice latency dashboard and the
// overview page.
export const conversationOrigins = `
          SELECT source,
            if(origin_kind = 'otlp', concat('OpenTelemetry: ', ifNull(origin_framework, 'unknown')), 'webhook') AS arrived_by,
            ifNull(origin_mapping, '') AS mapping,
            count() AS conversations,
            countIf(origin_complete = false) AS without_root_span,
            countIf(room_failed) AS failed_rooms,
            round(median(e2e_latency_p50) * 1000) AS median_call_e2e_p50_ms,
            max(event_time) AS last_conversation
          FROM ${database}.conversations FINAL
          WHERE $__timeFilter(event_time)
            AND ${filters.conversations}
          GROUP BY source, arrived_by, mapping
          ORDER BY conversations DESC`
