import { execFile } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { traceSessionId } from '../../services/assembler/mapping/session-id.ts'
import { testSecrets } from '../support/ingress-test-server.ts'
import { exportWithJs, type FixtureRequest, readableSpans, readFixture } from '../support/otlp-js-exporter.ts'
import { type OtlpPipeline, otlpPython, startOtlpPipeline, storedOrigin } from '../support/otlp-pipeline.ts'
import {
  attribute,
  expectLiveKitItems,
  expectLiveKitToolCalls,
  expectPipecatItems,
  named,
  type Span,
  seconds,
  spansOf,
  stored,
} from '../support/otlp-span-expectations.ts'

// Issue 34's "Done means", end to end: the LiveKit and the Pipecat conversations (the frameworks'
// real span trees, test/fixtures/otlp/) sent by the real OpenTelemetry exporters — the JS SDK's
// protobuf and JSON exporters and the Python SDK's opentelemetry-exporter-otlp-proto-http — to a
// real ingress, through Kafka and the registry to the assembler, and through the worker into the
// embedded ClickHouse: queryable in the same tables as the webhook's conversations, with the
// fixtures' own latencies, speaking times, tool calls and origin. A source whose PII policy drops
// content and tool data stores the same conversation without texts but with its latencies; a
// session that ended in error is stored as failed.
const run = promisify(execFile)
const sendFixture = fileURLToPath(new URL('./clients/send_fixture.py', import.meta.url))

/** The measured values and speaking times of a conversation's messages (not its texts). */
const measuredOf = (rows: Record<string, unknown>[]) =>
  rows
    .filter((item) => item.kind === 'Message' && item.role !== 'System')
    .map((item) => ({
      role: item.role,
      e2e_latency: item.e2e_latency,
      llm_node_ttft: item.llm_node_ttft,
      tts_node_ttfb: item.tts_node_ttfb,
      transcription_delay: item.transcription_delay,
      end_of_turn_delay: item.end_of_turn_delay,
      started_speaking_at: item.started_speaking_at,
      stopped_speaking_at: item.stopped_speaking_at,
      interrupted: item.interrupted,
    }))
/** What a whole conversation of the prod source stores: its agent, its root span's start, its origin. */
const prodConversation = (agent: string, root: Span, origin: ReturnType<typeof storedOrigin>) => ({
  source: 'prod',
  agent_id: agent,
  agent_name: agent,
  start_time: stored(root.startTimeUnixNano),
  ...origin,
})
/**
 * Both fixtures are the same call (greeting, a question answered with a tool call, a story the
 * caller interrupts, a last exchange): 3 user turns, 5 replies, 1 tool call, 1 interruption.
 */
const theCallsCounts = {
  user_turn_count: 3,
  agent_turn_count: 5,
  tool_call_count: 1,
  tool_error_count: 0,
  interruption_count: 1,
  handoff_count: 0,
}
/** The call's tool call, the same in both fixtures. */
const theToolCall = {
  tool_call_id: 'call_weather_1',
  tool_name: 'get_weather',
  tool_arguments_json: '{"location": "Tokyo"}',
  tool_output: 'The weather in Tokyo is sunny today, 24 degrees.',
}

/**
 * A fixture sent again as another conversation: a new trace id on every span (the ids of one run
 * cannot collide with another's), string attributes replaced by `replace` (Pipecat's
 * conversation.id is its session id), and `root` applied to the root span.
 */
function asNewTrace(
  request: FixtureRequest,
  replace: Record<string, string> = {},
  root?: (span: Span) => void,
): { request: FixtureRequest; traceId: string } {
  const copy = structuredClone(request)
  const traceId = randomBytes(16).toString('hex')
  for (const span of spansOf(copy)) {
    span.traceId = traceId
    for (const entry of span.attributes ?? [])
      if (entry.value.stringValue !== undefined && entry.value.stringValue in replace)
        entry.value.stringValue = replace[entry.value.stringValue]
    if (!span.parentSpanId) root?.(span)
  }
  return { request: copy, traceId }
}

const livekit = readFixture('livekit-1.x-conversation')
const pipecat = readFixture('pipecat-conversation')
const pipecatConversationId = 'c2b1e7a4-5d0f-4f3e-9a51-0d6c2f8e1b37'

describe('OTLP end to end: real exporters -> ingress -> Kafka -> assembler -> worker -> ClickHouse', () => {
  let pipeline: OtlpPipeline
  let python: string
  let scratch: string
  const sent = {
    livekit: asNewTrace(livekit),
    pipecat: asNewTrace(pipecat, { [pipecatConversationId]: randomUUID() }),
    livekitStaging: asNewTrace(livekit),
    pipecatStaging: asNewTrace(pipecat, { [pipecatConversationId]: randomUUID() }),
    livekitFailed: asNewTrace(livekit, {}, (span) => {
      span.status = { code: 2, message: 'LLM provider unreachable after 3 retries' }
    }),
  }
  const conversationIdOf = (request: FixtureRequest) =>
    attribute(named(request, 'conversation')[0]!, 'conversation.id') as string
  const sessions = {
    livekit: traceSessionId(sent.livekit.traceId),
    pipecat: conversationIdOf(sent.pipecat.request),
    livekitStaging: traceSessionId(sent.livekitStaging.traceId),
    pipecatStaging: conversationIdOf(sent.pipecatStaging.request),
    livekitFailed: traceSessionId(sent.livekitFailed.traceId),
  }
  /** The Python SDK's exporter sends a request (written to a file first: send_fixture.py reads one). */
  const sendWithPython = async (request: FixtureRequest, token: string) => {
    const file = join(scratch, `${randomUUID()}.json`)
    writeFileSync(file, JSON.stringify(request))
    const { stdout } = await run(python, [sendFixture, file, pipeline.tracesUrl, token], { timeout: 60_000 })
    expect(stdout.trim()).toBe(`accepted ${spansOf(request).length} spans`)
  }
  const sendWithJs = async (request: FixtureRequest, token: string, encoding: 'protobuf' | 'json') => {
    const result = await exportWithJs(readableSpans(request), { url: pipeline.tracesUrl, token, encoding })
    expect(result).toEqual({ code: 0 })
  }
  let conversations: Map<string, Record<string, unknown>>

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'va-otlp-e2e-'))
    python = await otlpPython('exporter')
    pipeline = await startOtlpPipeline('otlp-e2e', {
      PII_POLICY: 'staging:content=drop,tools=drop',
    })
    await sendWithJs(sent.livekit.request, testSecrets.prod, 'protobuf')
    await sendWithPython(sent.pipecat.request, testSecrets.prod)
    await sendWithPython(sent.livekitStaging.request, testSecrets.staging)
    await sendWithJs(sent.pipecatStaging.request, testSecrets.staging, 'json')
    await sendWithPython(sent.livekitFailed.request, testSecrets.prod)
    conversations = await pipeline.waitForConversations(Object.values(sessions))
  })
  afterAll(async () => {
    await pipeline?.stop()
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })

  describe('LiveKit Agents 1.7 (JS protobuf exporter)', () => {
    const session = named(livekit, 'agent_session')[0]!

    it('is one conversation of the agent, with its duration, counts and origin', () => {
      const row = conversations.get(sessions.livekit)!
      const origin = storedOrigin('livekit-agents', 'livekit-agents-1.7', sent.livekit.traceId)
      expect(row).toMatchObject({ ...prodConversation('harbor-weather', session, origin), status: null })
      expect(row).toMatchObject(theCallsCounts)
      expect(row.duration_seconds).toBeCloseTo(seconds(session), 6)
      expect(row.duration_seconds).toBeCloseTo(23.763, 3)
      expect(JSON.parse(row.extra_fields_json as string)).toEqual({
        livekit_job_id: 'AJ_7hQk2mXbV4pR',
        livekit_room_name: 'harbor-weather-call-4f7d2a',
      })
      // Speaking times (user_speaking, agent_speaking) make the turn-taking figures.
      expect(Number(row.caller_talk_ms)).toBeGreaterThan(4000)
      expect(Number(row.agent_talk_ms)).toBeGreaterThan(10_000)
      expect(row.e2e_latency_p50).toBeCloseTo(0.7316, 3)
    })

    it('stores every item with the latencies and speaking times of its spans', async () => {
      const items = await pipeline.rows('conversation_items', sessions.livekit)
      expect(items.map((item) => [item.role, item.kind, item.content])).toEqual([
        ['System', 'Message', 'You are the weather line of Harbor Radio. Answer briefly.'],
        ['System', 'AgentConfigUpdate', null],
        ['Assistant', 'Message', 'Hello, this is the Harbor Radio weather line. How can I help?'],
        ['User', 'Message', "What's the weather in Tokyo?"],
        ['Assistant', 'Message', 'Let me check that for you.'],
        ['Assistant', 'FunctionCall', null],
        ['Tool', 'FunctionCallOutput', null],
        ['Assistant', 'Message', 'It is sunny in Tokyo today, twenty-four degrees.'],
        ['User', 'Message', 'Tell me a story about the sea.'],
        ['Assistant', 'Message', 'Once upon a time a'],
        ['User', 'Message', 'Stop, that is enough.'],
        ['Assistant', 'Message', 'Okay. Is there anything else I can do for you?'],
      ])
      expect(items[1]!.tools_added).toEqual(['get_weather'])

      expectLiveKitItems(items, livekit)
      const users = items.filter((item) => item.role === 'User')
      for (const user of users) expect(user.transcript_confidence).toBeNull() // 0.0 from a stand-in STT: none (§10.4, 7)
      expect(users[0]).toMatchObject({ transcription_delay: expect.closeTo(0.20035, 5) })
      expect(users[0]).toMatchObject({ end_of_turn_delay: expect.closeTo(0.51313, 5) })
      const replies = items.filter((item) => item.role === 'Assistant' && item.kind === 'Message')
      const [greeting, checking, afterTool, story] = replies
      expect(greeting!.e2e_latency).toBeNull() // no user turn before it
      expect(checking).toMatchObject({ e2e_latency: expect.closeTo(0.71827, 5) })
      expect(checking).toMatchObject({ llm_node_ttft: expect.closeTo(0.10199, 5) })
      expect(checking).toMatchObject({ tts_node_ttfb: expect.closeTo(0.20185, 5) })
      expect(afterTool!.e2e_latency).toBeNull() // the reply after a tool call has none (§3.6)
      expect(story).toMatchObject({ interrupted: true, e2e_latency: expect.closeTo(0.73161, 5) })
    })

    it('stores the tool call with its name, arguments and output, and no handoff', async () => {
      const tool = named(livekit, 'function_tool')[0]!
      const calls = await pipeline.rows('tool_calls', sessions.livekit)
      expectLiveKitToolCalls(calls, livekit)
      const [call] = calls
      expect(call).toMatchObject({ ...theToolCall, tool_is_error: false })
      expect(call!.duration_seconds).toBeCloseTo(seconds(tool), 3)
      // The fixture's session has one agent: LiveKit's handoff spans are asserted with the framework
      // itself (livekit-agents.integration.test.ts).
      expect(await pipeline.rows('handoffs', sessions.livekit)).toEqual([])
    })
  })

  describe('Pipecat 1.7 (Python OTLP/HTTP exporter)', () => {
    const root = named(pipecat, 'conversation')[0]!

    it('is one conversation under its conversation.id, with its duration, counts and origin', () => {
      const row = conversations.get(sessions.pipecat)!
      const origin = storedOrigin('pipecat', 'pipecat-1.x', sent.pipecat.traceId)
      expect(row).toMatchObject({
        ...prodConversation('harbor-weather-bot', root, origin),
        ...theCallsCounts,
      })
      expect(row.duration_seconds).toBeCloseTo(seconds(root), 6)
      expect(JSON.parse(row.extra_fields_json as string)).toEqual({
        pipecat_conversation_id: sessions.pipecat,
        conversation_attributes: { 'call.direction': 'inbound' },
      })
    })

    it('stores each turn: the transcript with the STT delay, the replies with TTFT, TTFB and latency', async () => {
      const items = await pipeline.rows('conversation_items', sessions.pipecat)
      expect(items.map((item) => [item.role, item.kind])).toEqual([
        ['System', 'Message'],
        ['Assistant', 'Message'],
        ['User', 'Message'],
        ['Assistant', 'Message'],
        ['Assistant', 'FunctionCall'],
        ['Tool', 'FunctionCallOutput'],
        ['Assistant', 'Message'],
        ['User', 'Message'],
        ['Assistant', 'Message'],
        ['User', 'Message'],
        ['Assistant', 'Message'],
      ])
      expect(items[0]!.content).toBe('You are the weather line of Harbor Radio. Answer briefly.')
      expectPipecatItems(items, pipecat)
      const users = items.filter((item) => item.role === 'User')
      const replies = items.filter((item) => item.role === 'Assistant' && item.kind === 'Message')
      // The turn's latency on its first reply; the interruption on the story's.
      const [greeting, checking, afterTool, story, last] = replies
      expect(greeting!.e2e_latency).toBeNull()
      expect(checking).toMatchObject({
        e2e_latency: expect.closeTo(1.09321, 5),
        llm_node_ttft: expect.closeTo(0.35096, 5),
      })
      expect(afterTool!.e2e_latency).toBeNull()
      expect(story).toMatchObject({ interrupted: true, e2e_latency: expect.closeTo(1.20154, 5) })
      expect(last).toMatchObject({ interrupted: false, e2e_latency: expect.closeTo(0.97548, 5) })
      // Derived speaking times (§10.4, 8): the user's stop and the agent's start, never the agent's stop.
      expect(users[0]!.stopped_speaking_at).not.toBeNull()
      expect(checking!.started_speaking_at).not.toBeNull()
      expect(checking!.stopped_speaking_at).toBeNull()
    })

    it("stores the tool call from the next llm span's context", async () => {
      const [call, ...more] = await pipeline.rows('tool_calls', sessions.pipecat)
      expect(more).toEqual([])
      expect(call).toMatchObject(theToolCall)
      expect(await pipeline.rows('handoffs', sessions.pipecat)).toEqual([])
    })
  })

  describe('a source whose PII policy drops content and tool data (content=drop,tools=drop)', () => {
    it('stores the LiveKit conversation (Python exporter) without texts, with every latency', async () => {
      const row = conversations.get(sessions.livekitStaging)!
      expect(row).toMatchObject({
        source: 'staging',
        origin_mapping: 'livekit-agents-1.7', // detected as 1.7 although every lk.pii.* key is gone
        user_turn_count: 3,
        agent_turn_count: 5,
        tool_call_count: 1,
        interruption_count: 1,
      })
      expect(JSON.parse(row.extra_fields_json as string)).toEqual({ livekit_job_id: 'AJ_7hQk2mXbV4pR' })
      const items = await pipeline.rows('conversation_items', sessions.livekitStaging)
      const full = await pipeline.rows('conversation_items', sessions.livekit)
      // No system prompt (it is only in lk.pii.chat_ctx), no text anywhere.
      expect(items.every((item) => item.content === null && item.tool_arguments_json === null)).toBe(true)
      expect(items.every((item) => item.tool_output === null && item.instructions === null)).toBe(true)
      expect(measuredOf(items)).toEqual(measuredOf(full))
      const [call] = await pipeline.rows('tool_calls', sessions.livekitStaging)
      expect(call).toMatchObject({
        tool_name: 'get_weather',
        tool_call_id: 'call_weather_1',
        tool_arguments_json: null,
        tool_output: null,
      })
    })

    it('stores the Pipecat conversation (JS JSON exporter) without texts, with its latencies', async () => {
      const row = conversations.get(sessions.pipecatStaging)!
      expect(row).toMatchObject({ source: 'staging', origin_mapping: 'pipecat-1.x', user_turn_count: 3 })
      const items = await pipeline.rows('conversation_items', sessions.pipecatStaging)
      expect(items.every((item) => item.content === null)).toBe(true)
      // Without llm.input (the whole context) the tool call cannot be read: Pipecat has it nowhere else.
      expect(row.tool_call_count).toBe(0)
      const full = await pipeline.rows('conversation_items', sessions.pipecat)
      expect(measuredOf(items)).toEqual(measuredOf(full))
      expect(measuredOf(items).find((item) => item.e2e_latency !== null)?.e2e_latency).toBeCloseTo(1.09321, 5)
    })
  })

  it('stores a session that ended in error as failed, with its error message', () => {
    expect(conversations.get(sessions.livekitFailed)).toMatchObject({
      source: 'prod',
      origin_complete: true,
      room_failed: true,
      error_message: 'LLM provider unreachable after 3 retries',
      user_turn_count: 3,
    })
  })
})
