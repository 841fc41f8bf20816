import type { AgentConfig } from './agent-config.ts'
import type { ConversationContext } from './conversation-context.ts'
import type { AgentVersionRow } from './table-rows.ts'

/**
 * The agent's version row for the configuration the conversation ran (none without one). Every
 * conversation of that version brings the same row, which the table keeps once (its key).
 */
export function agentVersionRows(
  context: ConversationContext,
  configured: { config: AgentConfig; fingerprint: string } | null,
): AgentVersionRow[] {
  if (!configured) return []
  const { config, fingerprint } = configured
  return [
    {
      session_id: context.columns.session_id,
      version: context.columns.version,
      agent_id: context.columns.agent_id,
      config_fingerprint: fingerprint,
      instructions: config.instructions,
      update_instructions: config.updateInstructions,
      tools: config.tools,
      handoff_targets: config.handoffTargets,
    },
  ]
}
