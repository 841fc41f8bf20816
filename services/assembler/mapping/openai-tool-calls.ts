// Tool calls inside a Pipecat `llm` span's `input` (the whole context in the provider's format):
// OpenAI's chat format only (docs/otlp.md §8, question 9), which most OpenAI-compatible services
// share. An assistant message's tool_calls are the calls, a `tool` message with the call's id its
// output. Other providers' contexts yield no tool calls.
export interface ContextToolCall {
  id: string
  name: string | null
  arguments: string | null
}
export interface ContextToolOutput {
  callId: string
  content: string | null
}

export function openAiToolCalls(input: string | null): {
  calls: ContextToolCall[]
  outputs: ContextToolOutput[]
} {
  const calls: ContextToolCall[] = []
  const outputs: ContextToolOutput[] = []
  if (input === null) return { calls, outputs }
  let messages: unknown
  try {
    messages = JSON.parse(input)
  } catch {
    return { calls, outputs } // truncated by Pipecat (large values) or not JSON
  }
  if (!Array.isArray(messages)) return { calls, outputs }
  for (const message of messages as Record<string, unknown>[]) {
    if (message === null || typeof message !== 'object') continue
    if (message.role === 'assistant' && Array.isArray(message.tool_calls))
      for (const call of message.tool_calls as Record<string, unknown>[]) {
        const fn = (call?.function ?? {}) as Record<string, unknown>
        if (typeof call?.id !== 'string') continue
        calls.push({
          id: call.id,
          name: typeof fn.name === 'string' ? fn.name : null,
          arguments:
            typeof fn.arguments === 'string'
              ? fn.arguments
              : fn.arguments == null
                ? null
                : JSON.stringify(fn.arguments),
        })
      }
    if (message.role === 'tool' && typeof message.tool_call_id === 'string')
      outputs.push({ callId: message.tool_call_id, content: toolText(message.content) })
  }
  return { calls, outputs }
}

/** Pipecat JSON-encodes a string result once more ("\"The weather…\""): undo that one layer. */
function toolText(content: unknown): string | null {
  if (typeof content !== 'string') return content == null ? null : JSON.stringify(content)
  try {
    const decoded = JSON.parse(content)
    if (typeof decoded === 'string') return decoded
  } catch {
    // not JSON: the text itself
  }
  return content
}
