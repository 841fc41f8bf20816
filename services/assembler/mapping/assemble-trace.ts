import type { AssembledConversation, ConversationMapping } from './conversation-mapping.ts'
import { chooseMapping } from './mapping-choice.ts'
import { type TraceInput, traceView } from './trace-view.ts'

// A trace's spans -> its conversations, with the mapping chosen for it; null when no mapping
// recognises the spans (the assembler dead-letters them).
export interface AssembledTrace {
  mapping: ConversationMapping
  conversations: AssembledConversation[]
}

export function assembleTrace(
  input: TraceInput,
  sourceMappings?: ReadonlyMap<string, string>,
): AssembledTrace | null {
  const trace = traceView(input)
  const mapping = chooseMapping(trace, sourceMappings)
  if (!mapping) return null
  return { mapping, conversations: mapping.conversations(trace) }
}

/** Whether the spans hold the span that ends a conversation, for the mapping they would get. */
export function hasRootSpan(input: TraceInput, sourceMappings?: ReadonlyMap<string, string>): boolean {
  const trace = traceView(input)
  const mapping = chooseMapping(trace, sourceMappings)
  return mapping !== null && trace.spans.some((view) => mapping.isRoot(view.span.name, view.span.scope_name))
}
