// The names a LiveKit Agents version range uses (docs/otlp.md §3): span names and attribute keys,
// read by livekit-conversations.ts. A key set to null: that range does not send it.
export interface LiveKitTable {
  id: string
  versions: string
  /** The tracer's instrumentation scope. */
  scope: string
  /** Attribute keys only this range uses (detection between ranges; any one is enough). */
  fingerprint: readonly string[]
  spans: {
    session: string
    userTurn: string
    /** The agent's turn; older ranges name the realtime one differently. */
    agentTurns: readonly string[]
    userSpeaking: string
    agentSpeaking: string
    llmNode: string
    ttsNode: string
    functionTool: string
    agentActivity: string
  }
  session: { agentLabel: string; agentName: string; jobId: string; roomName: string | null }
  userTurn: {
    transcript: string
    confidence: string
    transcriptionDelay: string
    endOfTurnDelay: string
    participantKind: string | null
  }
  /** Attributes the range writes as 0 when it could not compute them: read as absent (§3.6). */
  zeroMeansAbsent: readonly string[]
  agentTurn: {
    text: string
    /** The user message that triggered the reply: a text session's only record of what the user said. */
    userInput: string
    interrupted: string
    e2eLatency: string | null
    speechId: string
    generationId: string | null
    onUserTurnCompletedDelay: string | null
  }
  llmNode: { ttft: string | null; chatContext: string }
  ttsNode: { ttfb: string | null }
  functionTool: {
    id: string | null
    name: string
    arguments: string
    output: string
    isError: string
  }
  activity: { agentLabel: string }
  exception: { message: string }
}
