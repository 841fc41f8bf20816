import type { ConversationContext } from './conversation-context.ts'
import type { ConversationRow, TestResultRow } from './table-rows.ts'

/** The test result of a conversation of a test (a test run, test id, status or evaluation); none for others. */
export function testResultRows(context: ConversationContext, conversation: ConversationRow): TestResultRow[] {
  const { data } = context
  if (
    data.test_run_id == null &&
    data.test_id == null &&
    data.test_status == null &&
    data.test_eval_result == null
  )
    return []
  return [
    {
      ...context.columns,
      test_run_id: data.test_run_id ?? '',
      test_id: data.test_id ?? '',
      test_status: conversation.test_status,
      test_success: conversation.test_success,
      test_reasons: conversation.test_reasons,
      test_completion_reason: conversation.test_completion_reason,
      status: conversation.status,
      room_failed: conversation.room_failed,
      error_message: conversation.error_message,
      duration_seconds: conversation.duration_seconds,
      item_count: conversation.item_count,
    },
  ]
}
