// Which span attributes carry what kind of personal data, per framework (docs/otlp.md §3.7,
// §4.6), as data: the PII policy's knobs apply to these classes (otlp-attribute-redaction.ts).
// - content: free text said or read (transcripts, replies, prompts, instructions);
// - tools: a tool call's arguments and results;
// - mixed: a whole LLM context or message list, which holds both text and tool calls;
// - marked: any other key LiveKit marks with a `pii` dot segment (participant identity, room
//   name, keys of versions not read yet): LiveKit's own rule, "the only marker" it honours;
// - phone: a phone number (LiveKit 1.8's SIP attributes, keys an application adds);
// - errors: exception texts (a tool's error, a user string in an exception).
export type AttributeClass = 'content' | 'tools' | 'mixed' | 'marked' | 'phone' | 'errors' | 'other'

const byKey = new Map<string, AttributeClass>([
  // LiveKit Agents 1.7 (telemetry/trace_types.py) and, without the pii segment, up to 1.6.
  ...[
    'lk.pii.user_transcript',
    'lk.pii.user_input',
    'lk.pii.response.text',
    'lk.pii.input_text',
    'lk.pii.instructions',
    'lk.pii.amd.transcript',
    'lk.user_transcript',
    'lk.user_input',
    'lk.response.text',
    'lk.input_text',
    'lk.instructions',
  ].map((key) => [key, 'content'] as const),
  ...[
    'lk.pii.function_tool.arguments',
    'lk.pii.function_tool.output',
    'lk.pii.response.function_calls',
    'lk.function_tool.arguments',
    'lk.function_tool.output',
    'lk.response.function_calls',
  ].map((key) => [key, 'tools'] as const),
  ['lk.pii.chat_ctx', 'mixed'],
  ['lk.chat_ctx', 'mixed'],
  ['lk.participant_identity', 'marked'],
  ['lk.room_name', 'marked'],
  // Pipecat 1.7 (utils/tracing/): unmarked text of the stt, llm, tts and realtime spans.
  ...['transcript', 'text', 'output', 'text_output', 'user_id', 'gen_ai.system_instructions'].map(
    (key) => [key, 'content'] as const,
  ),
  ['input', 'mixed'],
  ['tool.arguments', 'tools'],
  ['tool.result', 'tools'],
  // OpenTelemetry GenAI conventions (LiveKit 1.8 adds them).
  ['gen_ai.input.messages', 'mixed'],
  ['gen_ai.output.messages', 'mixed'],
  ['gen_ai.tool.call.arguments', 'tools'],
  ['gen_ai.tool.call.result', 'tools'],
  ['exception.message', 'errors'],
  ['exception.stacktrace', 'errors'],
])

/** Span events whose attributes are an LLM message (LiveKit's llm_request, llm/llm.py). */
const messageEvents = new Set([
  'gen_ai.system.message',
  'gen_ai.user.message',
  'gen_ai.assistant.message',
  'gen_ai.tool.message',
  'gen_ai.choice',
])

const phoneKey = /(?:^|[._])(?:phone_?number|from_number|to_number)$/i

function classOfKey(key: string): AttributeClass {
  if (phoneKey.test(key)) return 'phone'
  const known = byKey.get(key)
  if (known !== undefined) return known
  if (key.startsWith('function_calls.')) return 'tools' // Pipecat's realtime services
  if (key.startsWith('gen_ai.prompt') || key.startsWith('gen_ai.completion')) return 'content'
  if (key.split('.').includes('pii')) return 'marked'
  return 'other'
}

// Keys repeat across spans and requests: classified once each, up to a bound (keys are the
// client's to choose, so the cache must not grow without limit).
const cache = new Map<string, AttributeClass>()
const cacheLimit = 10_000

/** The class of a span or resource attribute (eventName: the span event it is on, if any). */
export function attributeClass(key: string, eventName?: string): AttributeClass {
  if (eventName !== undefined && messageEvents.has(eventName)) {
    if (key === 'tool_calls') return 'tools'
    if (key === 'content') return eventName === 'gen_ai.tool.message' ? 'tools' : 'content'
  }
  let known = cache.get(key)
  if (known === undefined) {
    known = classOfKey(key)
    if (cache.size < cacheLimit) cache.set(key, known)
  }
  return known
}
