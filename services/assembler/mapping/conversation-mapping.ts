import type { AvroRecord } from '../../../core/event/event-record.ts'
import type { TraceView } from './trace-view.ts'

// A mapping: one framework's version range, from a trace's spans to ConversationComplete records.
// Each is a family's code (livekit-conversations.ts, pipecat-conversations.ts) reading a table of
// span and attribute names (livekit-agents-1.7.ts, pipecat-1.x.ts, ...): a new version range with
// other names is a new table.
export interface AssembledConversation {
  sessionId: string
  /** The Avro record (the worker's input) without received_at, which the emission sets. */
  record: AvroRecord
  /** Its root span (agent_session / conversation) was there. */
  complete: boolean
}

export interface ConversationMapping {
  /** e.g. livekit-agents-1.7: stored as origin.mapping. */
  id: string
  framework: string
  /** The framework versions the table was read from (docs/otlp.md). */
  versions: string
  /** How well the trace's spans match: 0 not at all; the highest score wins (mapping-choice.ts). */
  score(trace: TraceView): number
  /** Whether the span that ends a conversation is among them. */
  isRoot(spanName: string, scopeName: string | null): boolean
  conversations(trace: TraceView): AssembledConversation[]
}
