import type { HistoryItem } from '../../../core/event/conversation-complete.types.ts'

// Which history items are tool calls and which are their outputs, and which output answers which
// call. Kinds are an open enumeration (FunctionCall / FunctionCallOutput seen), so the fields
// decide: an output carries tool_output or tool_is_error (or a kind naming an output or result);
// a call carries a tool name, call id or arguments. An output answers the earliest unanswered call
// with its tool_call_id; an output without one, or a call nobody answered, stands alone.
export interface ToolCallPair {
  /** item_index of the call, or of the output when there was no call. */
  callIndex: number
  call: { index: number; item: HistoryItem } | null
  output: { index: number; item: HistoryItem } | null
}

export function isToolOutput(item: HistoryItem): boolean {
  return (
    item.tool_output != null ||
    item.tool_is_error != null ||
    (item.kind != null && /output|result/i.test(item.kind))
  )
}

export function isToolCall(item: HistoryItem): boolean {
  return (
    !isToolOutput(item) &&
    (item.tool_name != null || item.tool_call_id != null || item.tool_arguments_json != null)
  )
}

export function pairToolCalls(history: readonly HistoryItem[]): ToolCallPair[] {
  const pairs: ToolCallPair[] = []
  const unanswered = new Map<string, ToolCallPair[]>()
  history.forEach((item, index) => {
    if (isToolCall(item)) {
      const pair: ToolCallPair = { callIndex: index, call: { index, item }, output: null }
      pairs.push(pair)
      if (item.tool_call_id != null) {
        const waiting = unanswered.get(item.tool_call_id)
        if (waiting) waiting.push(pair)
        else unanswered.set(item.tool_call_id, [pair])
      }
    } else if (isToolOutput(item)) {
      const pair = item.tool_call_id != null ? unanswered.get(item.tool_call_id)?.shift() : undefined
      if (pair) pair.output = { index, item }
      else pairs.push({ callIndex: index, call: null, output: { index, item } })
    }
  })
  return pairs.sort((a, b) => a.callIndex - b.callIndex)
}
