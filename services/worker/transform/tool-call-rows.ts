import type { ConversationContext } from './conversation-context.ts'
import type { ConversationItemRow, ToolCallRow } from './table-rows.ts'
import { pairToolCalls } from './tool-call-pairing.ts'

/**
 * A row per tool call with the output that answers it, or per output without a call
 * (tool-call-pairing.ts); the times and the agent speaking come from the item rows.
 */
export function toolCallRows(
  context: ConversationContext,
  items: readonly ConversationItemRow[],
): ToolCallRow[] {
  return pairToolCalls(context.history).map(({ callIndex, call, output }) => {
    const calledAt = call ? items[call.index]!.created_at : null
    const outputAt = output ? items[output.index]!.created_at : null
    return {
      ...context.columns,
      call_index: callIndex,
      active_agent_id: items[callIndex]!.active_agent_id,
      campaign_id: context.campaignId,
      test_run_id: context.testRunId,
      tool_call_id: call?.item.tool_call_id ?? output?.item.tool_call_id ?? null,
      tool_name: call?.item.tool_name ?? output?.item.tool_name ?? null,
      tool_arguments_json: call?.item.tool_arguments_json ?? null,
      call_item_index: call?.index ?? null,
      called_at: calledAt,
      output_item_index: output?.index ?? null,
      output_at: outputAt,
      tool_output: output?.item.tool_output ?? null,
      tool_is_error: output?.item.tool_is_error ?? null,
      duration_seconds: calledAt !== null && outputAt !== null ? (outputAt - calledAt) / 1000 : null,
    }
  })
}
