import type { ConversationContext } from './conversation-context.ts'
import type { ConversationItemRow, HandoffRow } from './table-rows.ts'

/** A row per item that hands the conversation on, from the agent speaking at it (its item row says which). */
export function handoffRows(
  context: ConversationContext,
  items: readonly ConversationItemRow[],
): HandoffRow[] {
  const handoffs: HandoffRow[] = []
  for (const item of items)
    if (item.handoff_to_agent_id !== null)
      handoffs.push({
        ...context.columns,
        item_index: item.item_index,
        from_agent_id: item.active_agent_id,
        to_agent_id: item.handoff_to_agent_id,
        handed_off_at: item.created_at,
        instructions: item.instructions,
        tools_added: item.tools_added,
        campaign_id: context.campaignId,
        test_run_id: context.testRunId,
      })
  return handoffs
}
