import { livekitAgents17 } from './livekit-agents-1.7.ts'
import type { LiveKitTable } from './livekit-mapping-table.ts'

// LiveKit Agents 1.5.0 – 1.6.10 (docs/otlp.md §3.8): the 1.7 spans and latencies, content keys
// without the `pii` segment. Read from the table, not from the 1.5/1.6 packages' runs (no fixture).
export const livekitAgents15: LiveKitTable = {
  ...livekitAgents17,
  id: 'livekit-agents-1.5',
  versions: '1.5.0 – 1.6.10',
  fingerprint: [
    'lk.user_transcript',
    'lk.response.text',
    'lk.user_input',
    'lk.chat_ctx',
    'lk.function_tool.arguments',
    'lk.room_name',
  ],
  session: { ...livekitAgents17.session, roomName: 'lk.room_name' },
  userTurn: { ...livekitAgents17.userTurn, transcript: 'lk.user_transcript' },
  agentTurn: { ...livekitAgents17.agentTurn, text: 'lk.response.text', userInput: 'lk.user_input' },
  llmNode: { ...livekitAgents17.llmNode, chatContext: 'lk.chat_ctx' },
  functionTool: {
    ...livekitAgents17.functionTool,
    arguments: 'lk.function_tool.arguments',
    output: 'lk.function_tool.output',
  },
}
