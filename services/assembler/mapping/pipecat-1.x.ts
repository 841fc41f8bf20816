import type { PipecatTable } from './pipecat-mapping-table.ts'

// Pipecat 1.2.0 – 1.14.0 (utils/tracing/; docs/otlp.md §4.3, §4.7; read at 1.7.0).
export const pipecat1x: PipecatTable = {
  id: 'pipecat-1.x',
  versions: '1.2.0 – 1.14.0',
  scopes: ['pipecat.turn', 'pipecat'],
  fingerprint: [
    'turn.user_bot_latency_seconds',
    'gen_ai.system_instructions',
    'stt.incomplete',
    'tts.interrupted',
  ],
  spans: { conversation: 'conversation', turn: 'turn', stt: 'stt', llm: 'llm', tts: 'tts' },
  conversation: { id: 'conversation.id' },
  turn: {
    number: 'turn.number',
    userBotLatency: 'turn.user_bot_latency_seconds',
    wasInterrupted: 'turn.was_interrupted',
    endedByConversationEnd: 'turn.ended_by_conversation_end',
  },
  stt: { transcript: 'transcript', ttfb: 'metrics.ttfb' },
  llm: {
    input: 'input',
    output: 'output',
    ttfb: 'metrics.ttfb',
    systemInstructions: 'gen_ai.system_instructions',
  },
  tts: { ttfb: 'metrics.ttfb', interrupted: 'tts.interrupted' },
  call: {
    fromNumber: 'call.from_number',
    toNumber: 'call.to_number',
    telecomProvider: 'call.provider',
    callSid: 'call.sid',
  },
  exception: { message: 'exception.message' },
}
