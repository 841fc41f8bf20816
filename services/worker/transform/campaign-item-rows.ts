import type { ConversationContext } from './conversation-context.ts'
import type { CampaignItemRow, ConversationRow } from './table-rows.ts'

/** The campaign item a conversation of a campaign (a campaign or campaign item id) was; none for others. */
export function campaignItemRows(
  context: ConversationContext,
  conversation: ConversationRow,
): CampaignItemRow[] {
  const { data } = context
  if (data.campaign_id == null && data.campaign_item_id == null) return []
  return [
    {
      ...context.columns,
      campaign_id: data.campaign_id ?? '',
      campaign_item_id: data.campaign_item_id ?? '',
      campaign_name: conversation.campaign_name,
      status: conversation.status,
      room_failed: conversation.room_failed,
      room_error: conversation.room_error,
      error_message: conversation.error_message,
      duration_seconds: conversation.duration_seconds,
      telecom_provider: conversation.telecom_provider,
      from_number: conversation.from_number,
      to_number: conversation.to_number,
      call_sid: conversation.call_sid,
      url_parameters: conversation.url_parameters,
      user_turn_count: conversation.user_turn_count,
    },
  ]
}
