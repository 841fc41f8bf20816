// The names a Pipecat version range uses (docs/otlp.md §4): span names and attribute keys, read by
// pipecat-conversations.ts. A key set to null: that range does not send it.
export interface PipecatTable {
  id: string
  versions: string
  /** The scopes of the conversation/turn spans and of the service spans. */
  scopes: readonly string[]
  /** Attribute keys only this range uses (detection between ranges; any one is enough). */
  fingerprint: readonly string[]
  spans: { conversation: string; turn: string; stt: string; llm: string; tts: string }
  conversation: { id: string }
  turn: {
    number: string
    userBotLatency: string | null
    wasInterrupted: string
    endedByConversationEnd: string
  }
  stt: { transcript: string; ttfb: string | null }
  llm: { input: string; output: string; ttfb: string | null; systemInstructions: string | null }
  tts: { ttfb: string | null; interrupted: string | null }
  /**
   * Keys the application may add with additional_span_attributes (§8, question 11): read from the
   * conversation span into the record's call fields.
   */
  call: { fromNumber: string; toNumber: string; telecomProvider: string; callSid: string }
  exception: { message: string }
}
