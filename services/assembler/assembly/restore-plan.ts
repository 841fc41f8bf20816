import type { OtlpSpan, OtlpSpans } from '../../../core/otlp/otlp-spans.ts'
import type { TraceInput } from '../mapping/trace-view.ts'
import type { AssemblySettings } from './assembly-settings.ts'

// What an assembler restores of a partition's recent past when it starts reading the partition
// (a start, or a partition gained in a rebalance), without I/O: the messages before the committed
// offset were all covered by an acknowledged emission or dead letter (the commit rule), so the
// traces they make are already emitted; they are restored as such, so that a late span of one of
// them reopens it as within one process life (docs/otlp.md §10.3, "Restart").
// - The replay reads back `restoreMs` from the time of the last committed message.
// - Within one process life, consecutive messages of one trace are at most idle + late window apart
//   (after that its id is forgotten and a later span dead-lettered). So a trace whose first replayed
//   message comes at least that long after the replay's start has no message before the replay:
//   its replayed spans are all it had. Such a trace is restored whole, with its spans, when it has
//   its root span.
// - Every other trace seen (its first replayed message early in the replay: it may have spans
//   before it; or no root span: perhaps a late fragment that was dead-lettered) is restored as an id
//   only: a later span of it is dead-lettered, never assembled alone into a fragment whose key time
//   cannot match the stored conversation's. So is the key (the trace id) of a message that does not
//   decode.

export interface ReplayedMessage {
  offset: bigint
  /** The Kafka message's timestamp (ms). */
  timestampMs: number
  /** The Kafka key: the trace id. */
  key: string | null
  /** null: it does not decode (it was dead-lettered). */
  message: OtlpSpans | null
}

export interface RestoredTraces {
  /** Emitted traces whose replayed spans are the whole trace: kept for late spans. */
  whole: TraceInput[]
  /** Emitted traces that may have spans before the replay, or lack their root: remembered as ids. */
  idsOnly: string[]
}

/** When the replay of a partition whose last committed message has `committedTimeMs` starts. */
export function replayStartMs(committedTimeMs: number, settings: AssemblySettings): number {
  return committedTimeMs - settings.restoreMs
}

/** The gap beyond which two messages of one trace id are not one trace within a process life. */
export function traceGapMs(settings: AssemblySettings): number {
  return settings.idleMs + settings.lateWindowMs
}

interface Gathered {
  firstTimestampMs: number
  input: { traceId: string; source: string; resourceAttributes: OtlpSpans['resource_attributes'] }
  spans: Map<string, OtlpSpan>
  hasRoot: boolean
  undecodable: boolean
}

/** The traces of a partition's replayed messages (offset order), sorted into whole ones and ids. */
export function planRestore(
  messages: Iterable<ReplayedMessage>,
  startMs: number,
  settings: AssemblySettings,
  isRoot: (span: OtlpSpan) => boolean,
): RestoredTraces {
  const traces = new Map<string, Gathered>()
  for (const replayed of messages) {
    const traceId = replayed.message?.trace_id ?? replayed.key
    if (traceId === null) continue // neither decodes nor names its trace: nothing to remember
    let trace = traces.get(traceId)
    if (!trace) {
      trace = {
        firstTimestampMs: replayed.timestampMs,
        input: {
          traceId,
          source: replayed.message?.source ?? '',
          resourceAttributes: replayed.message?.resource_attributes ?? [],
        },
        spans: new Map(),
        hasRoot: false,
        undecodable: false,
      }
      traces.set(traceId, trace)
    }
    if (replayed.message === null) {
      trace.undecodable = true
      continue
    }
    if (trace.spans.size === 0 && trace.input.source === '') {
      trace.input.source = replayed.message.source
      trace.input.resourceAttributes = replayed.message.resource_attributes
    }
    for (const span of replayed.message.spans) {
      trace.spans.set(span.span_id, span)
      if (isRoot(span)) trace.hasRoot = true
    }
  }
  const wholeAfterMs = startMs + traceGapMs(settings)
  const restored: RestoredTraces = { whole: [], idsOnly: [] }
  for (const trace of traces.values()) {
    if (trace.hasRoot && !trace.undecodable && trace.firstTimestampMs >= wholeAfterMs)
      restored.whole.push({ ...trace.input, spans: [...trace.spans.values()] })
    else restored.idsOnly.push(trace.input.traceId)
  }
  return restored
}
