import { describe, expect, it } from 'vitest'
import type { HistoryItem } from '../../../core/event/conversation-complete.types.ts'
import type { OtlpSpan, OtlpSpans } from '../../../core/otlp/otlp-spans.ts'
import { otlpRedactor } from '../../../core/privacy/pii/otlp-attribute-redaction.ts'
import { parsePiiPolicy } from '../../../core/privacy/pii/pii-policy.ts'
import {
  livekitFixtureFile,
  livekitTextFixtureFile,
  pipecatFixtureFile,
  readOtlpFixture,
} from '../../../test/support/otlp-fixture.ts'
import { assembleTrace, hasRootSpan } from './assemble-trace.ts'
import type { TraceInput } from './trace-view.ts'

const inputOf = (message: OtlpSpans, spans: OtlpSpan[] = message.spans): TraceInput => ({
  traceId: message.trace_id,
  source: message.source,
  resourceAttributes: message.resource_attributes,
  spans,
})
const livekit = readOtlpFixture(livekitFixtureFile)[0]!
const pipecat = readOtlpFixture(pipecatFixtureFile)[0]!
type Data = { history: HistoryItem[] } & Record<string, unknown>
const only = (input: TraceInput) => {
  const assembled = assembleTrace(input)
  expect(assembled?.conversations).toHaveLength(1)
  const conversation = assembled!.conversations[0]!
  return { assembled: assembled!, conversation, data: conversation.record.data as Data }
}
const messages = (history: HistoryItem[], role: string) =>
  history.filter((item) => item.kind === 'Message' && item.role === role)

describe('LiveKit Agents 1.7 fixture', () => {
  const { assembled, conversation, data } = only(inputOf(livekit))

  it('is detected as livekit-agents-1.7 and marked with its origin', () => {
    expect(assembled.mapping.id).toBe('livekit-agents-1.7')
    expect(conversation.record.origin).toEqual({
      kind: 'otlp',
      framework: 'livekit-agents',
      framework_version: null,
      mapping: 'livekit-agents-1.7',
      trace_id: livekit.trace_id,
      complete: true,
    })
    expect(conversation.complete).toBe(true)
  })

  it('takes the session id from the trace id and the agent from lk.agent_name', () => {
    const hex = livekit.trace_id
    expect(data.session_id).toBe(
      `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    )
    expect(data.agent_id).toBe('harbor-weather')
    expect(data.agent_name).toBe('harbor-weather')
    expect(data.duration_seconds).toBeCloseTo(23.763, 3)
    expect(data.start_time).toMatch(/^2026-11-28T02:52:26\.\d{6}Z$/)
    expect(JSON.parse(data.extra_fields_json as string)).toEqual({
      livekit_job_id: 'AJ_7hQk2mXbV4pR',
      livekit_room_name: 'harbor-weather-call-4f7d2a',
    })
  })

  it('orders the history: instructions, config, greeting, then each exchange with the tool call', () => {
    expect(data.history.map((item) => `${item.role}:${item.kind}`)).toEqual([
      'System:Message',
      'System:AgentConfigUpdate',
      'Assistant:Message',
      'User:Message',
      'Assistant:Message',
      'Assistant:FunctionCall',
      'Tool:FunctionCallOutput',
      'Assistant:Message',
      'User:Message',
      'Assistant:Message',
      'User:Message',
      'Assistant:Message',
    ])
    expect(data.history[0]!.content).toBe('You are the weather line of Harbor Radio. Answer briefly.')
    expect(data.history[1]!.tools_added).toEqual(['get_weather'])
  })

  it('carries the turn latencies of user_turn, agent_turn, llm_node and tts_node', () => {
    const [, question] = messages(data.history, 'User').map((item) => item)
    expect(messages(data.history, 'User')[0]!.metrics).toMatchObject({
      transcription_delay: 0.20035195350646973,
      end_of_turn_delay: 0.5131270885467529,
    })
    expect(question!.content).toBe('Tell me a story about the sea.')
    const replies = messages(data.history, 'Assistant')
    expect(replies[1]).toMatchObject({
      content: 'Let me check that for you.',
      id: 'speech_bb31bbf574fb_1',
      metrics: {
        e2e_latency: 0.718268871307373,
        llm_node_ttft: 0.10198508999746991,
        tts_node_ttfb: 0.20184614500612952,
      },
    })
    // The reply after a tool call has no e2e latency (not sent, §3.6), the greeting neither.
    expect(replies[0]!.metrics!.e2e_latency).toBeNull()
    expect(replies[2]!.metrics!.e2e_latency).toBeNull()
  })

  it('reads speaking times from user_speaking and agent_speaking, and the interruption', () => {
    const user = messages(data.history, 'User')[0]!
    expect(
      Date.parse(user.metrics!.stopped_speaking_at!) - Date.parse(user.metrics!.started_speaking_at!),
    ).toBe(2000)
    const story = messages(data.history, 'Assistant')[3]!
    expect(story).toMatchObject({ content: 'Once upon a time a', interrupted: true })
    expect(story.metrics!.started_speaking_at).toMatch(/Z$/)
    expect(story.metrics!.stopped_speaking_at).toMatch(/Z$/)
  })

  it('maps function_tool to a call with its arguments and an output', () => {
    const call = data.history.find((item) => item.kind === 'FunctionCall')!
    const output = data.history.find((item) => item.kind === 'FunctionCallOutput')!
    expect(call).toMatchObject({
      tool_name: 'get_weather',
      tool_call_id: 'call_weather_1',
      tool_arguments_json: '{"location": "Tokyo"}',
    })
    expect(output).toMatchObject({
      tool_call_id: 'call_weather_1',
      tool_output: 'The weather in Tokyo is sunny today, 24 degrees.',
      tool_is_error: false,
    })
  })

  it('reads a transcript confidence of 0 as absent (§3.6)', () => {
    for (const user of messages(data.history, 'User')) expect(user.transcript_confidence).toBeNull()
  })
})

describe('LiveKit Agents 1.7 in text mode (no STT, TTS, VAD or room): a tool call and a handoff', () => {
  const text = readOtlpFixture(livekitTextFixtureFile)[0]!
  const { conversation, data } = only(inputOf(text))

  it("takes the framework version from the application's resource attribute", () => {
    expect(conversation.record.origin).toMatchObject({
      mapping: 'livekit-agents-1.7',
      framework_version: '1.7.1',
    })
    expect(data.agent_id).toBe('harbor-weather-agent') // no job: no lk.agent_name, the service name
    expect(data.agent_name).toBe('weather_agent')
  })

  it("makes each user message from its reply's lk.pii.user_input (there is no user_turn span)", () => {
    expect(text.spans.some((span) => span.name === 'user_turn')).toBe(false)
    expect(
      data.history.map(
        (item) =>
          `${item.role}:${item.kind}:${item.content ?? item.tool_name ?? item.handoff_to_agent_id ?? item.instructions ?? ''}`,
      ),
    ).toEqual([
      'System:Message:You are the weather line of Harbor Radio. Answer briefly.',
      'System:AgentConfigUpdate:You are the weather line of Harbor Radio. Answer briefly.',
      'Assistant:Message:Hello, this is the Harbor Radio weather line. How can I help?',
      "User:Message:What's the weather in Oslo?",
      'Assistant:Message:Let me look that up.',
      'Assistant:FunctionCall:get_weather',
      'Tool:FunctionCallOutput:get_weather',
      'Assistant:Message:It is raining lightly in Oslo, nine degrees.',
      'User:Message:Can I talk to someone about my invoice?',
      'Assistant:FunctionCall:transfer_to_billing',
      'Tool:FunctionCallOutput:transfer_to_billing',
      'System:AgentHandoff:billing_agent',
      'System:AgentConfigUpdate:You are the Harbor Radio billing desk. Explain charges briefly.',
      'Assistant:Message:This is the billing desk. What can I do for you?',
      'User:Message:Why was I charged twice in March?',
      'Assistant:Message:I see two charges on March 3rd; I have refunded the second one.',
    ])
    const user = messages(data.history, 'User')[0]!
    expect(user.metrics ?? null).toBeNull() // no speech: no speaking times, no delays
  })

  it('keeps what text mode measures: the LLM time to first token and the reply played as text', () => {
    const replies = messages(data.history, 'Assistant')
    for (const reply of replies) {
      expect(reply.metrics!.llm_node_ttft).toBeGreaterThan(0.1)
      expect(reply.metrics!.started_speaking_at).not.toBeNull() // agent_speaking: the text's playout
      expect(reply.metrics!.e2e_latency).toBeNull() // no user speech to measure from
      expect(reply.metrics!.tts_node_ttfb).toBeNull() // no TTS
    }
  })
})

describe('Pipecat 1.7 fixture', () => {
  const { assembled, conversation, data } = only(inputOf(pipecat))

  it('is detected as pipecat-1.x with conversation.id as the session id', () => {
    expect(assembled.mapping.id).toBe('pipecat-1.x')
    expect(data.session_id).toBe('c2b1e7a4-5d0f-4f3e-9a51-0d6c2f8e1b37')
    expect(data.agent_id).toBe('harbor-weather-bot')
    expect(conversation.record.origin).toMatchObject({
      framework: 'pipecat',
      mapping: 'pipecat-1.x',
      complete: true,
    })
    expect(JSON.parse(data.extra_fields_json as string).conversation_attributes).toEqual({
      'call.direction': 'inbound',
    })
  })

  it('makes a user message per turn and an assistant message per llm output, with latencies', () => {
    expect(messages(data.history, 'User').map((item) => item.content)).toEqual([
      "What's the weather in Tokyo?",
      'Tell me a story about the sea.',
      'Stop, that is enough.',
    ])
    const replies = messages(data.history, 'Assistant')
    expect(replies).toHaveLength(5)
    expect(replies[1]).toMatchObject({
      content: 'Let me check that for you.',
      metrics: {
        e2e_latency: 1.0932109355926514,
        llm_node_ttft: 0.35096001625061035,
        tts_node_ttfb: 0.1813971996307373,
      },
    })
    expect(replies[2]!.metrics!.e2e_latency).toBeNull()
    expect(messages(data.history, 'User')[0]!.metrics!.transcription_delay).toBe(0.3259420394897461)
  })

  it('derives speaking times: the user from the STT span, the agent start from the latency', () => {
    const user = messages(data.history, 'User')[0]!
    const reply = messages(data.history, 'Assistant')[1]!
    const stopped = Date.parse(user.metrics!.stopped_speaking_at!)
    expect(Date.parse(reply.metrics!.started_speaking_at!) - stopped).toBeCloseTo(1093, -1)
    expect(reply.metrics!.stopped_speaking_at ?? null).toBeNull()
  })

  it('finds the tool call in the next llm input (OpenAI format), output unquoted', () => {
    const call = data.history.find((item) => item.kind === 'FunctionCall')!
    const output = data.history.find((item) => item.kind === 'FunctionCallOutput')!
    expect(call).toMatchObject({
      tool_name: 'get_weather',
      tool_call_id: 'call_weather_1',
      tool_arguments_json: '{"location": "Tokyo"}',
    })
    expect(output).toMatchObject({
      tool_call_id: 'call_weather_1',
      tool_output: 'The weather in Tokyo is sunny today, 24 degrees.',
    })
    expect(data.history.filter((item) => item.kind === 'FunctionCall')).toHaveLength(1)
  })

  it('marks the interrupted turn’s reply', () => {
    const story = messages(data.history, 'Assistant')[3]!
    expect(story.content).toMatch(/^Once upon a time/)
    expect(story.interrupted).toBe(true)
    expect(messages(data.history, 'Assistant').filter((item) => item.interrupted)).toHaveLength(1)
  })
})

describe('edge cases', () => {
  it('a trace without the PII attributes still makes a valid record (no texts, same latencies)', () => {
    const spans = livekit.spans.map((span) => ({
      ...span,
      attributes: span.attributes.filter((attribute) => !attribute.key.split('.').includes('pii')),
    }))
    const { assembled, data } = only(inputOf(livekit, spans))
    // Without any lk.pii key the 1.7 and 1.5 tables tie: the newest wins.
    expect(assembled.mapping.id).toBe('livekit-agents-1.7')
    expect(data.history.some((item) => item.role === 'System')).toBe(false)
    const replies = messages(data.history, 'Assistant')
    expect(replies).toHaveLength(5) // kept by their agent_speaking spans
    expect(replies.every((item) => item.content === null)).toBe(true)
    expect(replies[1]!.metrics!.e2e_latency).toBe(0.718268871307373)
    expect(data.history.find((item) => item.kind === 'FunctionCall')!.tool_arguments_json).toBeNull()
  })

  it("a Pipecat trace under the receiver's content=drop policy keeps each reply with its latencies", () => {
    // The receiver removes output, input, transcript, text and the instructions (docs/otlp.md §9.3):
    // a reply is then known by the tts span that synthesized it, as a LiveKit one by its agent_speaking.
    const redact = otlpRedactor(parsePiiPolicy('staging:content=drop,tools=drop').get('staging')!, undefined)
    const redacted = redact(pipecat)
    expect(redacted.spans.some((span) => span.attributes.some((a) => a.key === 'output'))).toBe(false)
    const { data } = only(inputOf(redacted))
    const replies = messages(data.history, 'Assistant')
    expect(replies).toHaveLength(5)
    expect(replies.every((item) => item.content === null)).toBe(true)
    expect(replies.map((item) => item.metrics!.llm_node_ttft)).toEqual(
      messages(only(inputOf(pipecat)).data.history, 'Assistant').map((item) => item.metrics!.llm_node_ttft),
    )
    expect(replies[1]!.metrics).toMatchObject({
      e2e_latency: 1.0932109355926514,
      tts_node_ttfb: 0.1813971996307373,
    })
    expect(replies[3]!.interrupted).toBe(true)
    expect(messages(data.history, 'User').map((item) => item.metrics!.transcription_delay)).toEqual([
      0.3259420394897461, 0.329024076461792, 0.32218384742736816,
    ])
    // The tool call was only in llm.input: gone with it.
    expect(data.history.some((item) => item.kind === 'FunctionCall')).toBe(false)
  })

  it('a Pipecat llm span that only asked for a tool (no output, no tts) is no reply', () => {
    const spans = pipecat.spans.map((span) =>
      span.span_id === 'f3216c4a2533a3ca' // turn 2's first llm, whose tts (0b0d7a96f0005e47) goes too
        ? { ...span, attributes: span.attributes.filter((a) => a.key !== 'output') }
        : span,
    )
    const { data } = only(
      inputOf(
        pipecat,
        spans.filter((span) => span.span_id !== '0b0d7a96f0005e47'),
      ),
    )
    const replies = messages(data.history, 'Assistant')
    expect(replies.map((item) => item.content)).not.toContain('Let me check that for you.')
    expect(replies).toHaveLength(4)
    expect(data.history.filter((item) => item.kind === 'FunctionCall')).toHaveLength(1)
  })

  it('missing attributes read as absent, not as zero', () => {
    const spans = livekit.spans.map((span) =>
      span.name === 'agent_turn' || span.name === 'tts_node' ? { ...span, attributes: [] } : span,
    )
    const { data } = only(inputOf(livekit, spans))
    const reply = messages(data.history, 'Assistant')[1]!
    expect(reply.metrics).toMatchObject({
      e2e_latency: null,
      tts_node_ttfb: null,
      llm_node_ttft: 0.10198508999746991,
    })
    expect(reply.interrupted).toBe(false)
  })

  it('reads integral doubles sent as int_value (the JS SDK)', () => {
    const spans = livekit.spans.map((span) => ({
      ...span,
      attributes: span.attributes.map((attribute) =>
        attribute.key === 'lk.end_of_turn_delay'
          ? { ...attribute, double_value: null, int_value: 2 }
          : attribute,
      ),
    }))
    const { data } = only(inputOf(livekit, spans))
    expect(messages(data.history, 'User')[0]!.metrics!.end_of_turn_delay).toBe(2)
  })

  it('two agent_session spans in one trace make two conversations with distinct ids', () => {
    const shiftUs = 60_000_000
    const copy = livekit.spans.map((span) => ({
      ...span,
      span_id: `${span.span_id.slice(0, 14)}ff`,
      parent_span_id: span.parent_span_id && `${span.parent_span_id.slice(0, 14)}ff`,
      start_time_us: span.start_time_us + shiftUs,
      end_time_us: span.end_time_us + shiftUs,
    }))
    const assembled = assembleTrace(inputOf(livekit, [...livekit.spans, ...copy]))!
    expect(assembled.conversations).toHaveLength(2)
    const [first, second] = assembled.conversations
    expect(first!.sessionId).not.toBe(second!.sessionId)
    expect(first!.sessionId).toBe(only(inputOf(livekit)).data.session_id)
    for (const conversation of assembled.conversations)
      expect((conversation.record.data as Data).history.filter((item) => item.role === 'User')).toHaveLength(
        3,
      )
  })

  it('without its root span: one incomplete conversation, same session id', () => {
    const spans = livekit.spans.filter((span) => span.name !== 'agent_session')
    expect(hasRootSpan(inputOf(livekit, spans))).toBe(false)
    expect(hasRootSpan(inputOf(livekit))).toBe(true)
    const { conversation, data } = only(inputOf(livekit, spans))
    expect(conversation.complete).toBe(false)
    expect(data.status).toBe('incomplete')
    expect(data.session_id).toBe(only(inputOf(livekit)).data.session_id)
    expect(conversation.record.origin).toMatchObject({ complete: false })
  })

  it('a span sent twice counts once; an ERROR root marks the conversation failed', () => {
    const spans = livekit.spans.map((span) =>
      span.name === 'agent_session' ? { ...span, status_code: 2, status_message: 'room closed' } : span,
    )
    const { data } = only(inputOf(livekit, [...spans, ...spans.slice(0, 10)]))
    expect(data.room_metadata).toEqual({ failed: true, error: 'room closed' })
    expect(data.error_message).toBe('room closed')
    expect(data.history).toHaveLength(12)
  })

  it('spans of no known framework make no conversation; a source setting picks the mapping', () => {
    const foreign = livekit.spans.map((span) => ({
      ...span,
      name: `x_${span.name}`,
      scope_name: 'other',
      attributes: [],
    }))
    expect(assembleTrace(inputOf(livekit, foreign))).toBeNull()
    const pipecatAsSource = assembleTrace(inputOf(pipecat), new Map([['test', 'livekit-agents-1.5']]))
    expect(pipecatAsSource?.mapping.id).toBe('livekit-agents-1.5')
  })

  it('a 1.5-1.6 trace (content keys without pii) is read by its own table', () => {
    const spans = livekit.spans.map((span) => ({
      ...span,
      attributes: span.attributes.map((attribute) => ({
        ...attribute,
        key: attribute.key.replace('lk.pii.', 'lk.'),
      })),
    }))
    const { assembled, data } = only(inputOf(livekit, spans))
    expect(assembled.mapping.id).toBe('livekit-agents-1.5')
    expect(messages(data.history, 'User')[0]!.content).toBe("What's the weather in Tokyo?")
  })
})
