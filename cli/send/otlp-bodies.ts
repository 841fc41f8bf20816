import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { exportRequests, livekitTrace } from '../../generator/livekit-trace.ts'

// `send --as-otlp`: each conversation as the export requests LiveKit Agents 1.7's BatchSpanProcessor
// would make of its trace (generator/livekit-trace.ts), in order, its root span's request last.
// Pure.
export function otlpBodies(
  events: readonly ConversationCompleteEvent[],
  url: string,
): { url: string; body: string }[] {
  return events.flatMap((event) =>
    exportRequests(livekitTrace(event, event.data.agent_name ?? 'voice-agent')).map((request) => ({
      url,
      body: JSON.stringify(request),
    })),
  )
}
