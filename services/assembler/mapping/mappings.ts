import type { ConversationMapping } from './conversation-mapping.ts'
import { livekitAgents15 } from './livekit-agents-1.5.ts'
import { livekitAgents17 } from './livekit-agents-1.7.ts'
import { livekitMapping } from './livekit-conversations.ts'
import { pipecat1x } from './pipecat-1.x.ts'
import { pipecatMapping } from './pipecat-conversations.ts'

// Every mapping the assembler knows, newest range of each framework first (a tie in detection
// goes to the earlier one).
export const mappings: readonly ConversationMapping[] = [
  livekitMapping(livekitAgents17),
  livekitMapping(livekitAgents15),
  pipecatMapping(pipecat1x),
]

export const mappingIds = mappings.map((mapping) => mapping.id)

export function mappingById(id: string): ConversationMapping | undefined {
  return mappings.find((mapping) => mapping.id === id)
}
