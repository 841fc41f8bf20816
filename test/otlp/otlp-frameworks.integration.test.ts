import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { traceSessionId } from '../../services/assembler/mapping/session-id.ts'
import { testSecrets } from '../support/ingress-test-server.ts'
import type { FixtureRequest } from '../support/otlp-js-exporter.ts'
import { type OtlpPipeline, otlpPython, startOtlpPipeline, storedOrigin } from '../support/otlp-pipeline.ts'
import * as spans from '../support/otlp-span-expectations.ts'

// The frameworks themselves, pinned, with their tracing on, exporting through the OpenTelemetry
// Python SDK's OTLP/HTTP exporter to a real ingress, and their conversations read back from
// ClickHouse after the assembler and the worker (docs/otlp.md §9.4):
// - Pipecat 1.7.0's pipeline (test/otlp/clients/pipecat_client: PipelineWorker with tracing, its
//   observers and aggregators, OpenAILLMService's own processing; stand-in caller, STT, LLM
//   provider answer, TTS and speaker), ~25 s of scripted call time;
// - LiveKit Agents 1.7.1's AgentSession in text mode (test/otlp/clients/livekit_client/run_session:
//   stand-in LLM, three user text turns, a tool call and a handoff), a few seconds;
// - LiveKit Agents 1.7.1's AgentSession in a voice call (run_voice_session: stand-in microphone,
//   VAD, STT, LLM, TTS and loudspeaker; the framework's own endpointing, playout and interruption),
//   ~27 s of scripted call time.
// Each run also writes the spans it exported to a file: the rows are checked against those.
// The venvs come from scripts/ensure-otlp-python.sh (cached; the first install takes a minute or
// two); without python3, its venv module or PyPI the test fails naming the fix, never skips.
const run = promisify(execFile)
/** What the caller says in the Pipecat call and in the LiveKit voice call (the same script). */
const theCallersWords = [
  "What's the weather in Tokyo?",
  'Tell me a story about the sea.',
  'Stop, that is enough.',
]
const clients = fileURLToPath(new URL('./clients/', import.meta.url))

describe('the frameworks exporting to the receiver, their conversations in ClickHouse', () => {
  let pipeline: OtlpPipeline
  let scratch: string
  let pipecat: FixtureRequest
  let livekit: FixtureRequest
  let livekitVoice: FixtureRequest

  /** Runs a framework's client module with its exporter pointed at the receiver; the spans it sent. */
  async function runFramework(client: 'pipecat' | 'livekit', module: string): Promise<FixtureRequest> {
    const python = await otlpPython(client)
    const out = join(scratch, `${module}.json`)
    const { stdout } = await run(python, ['-m', module, out], {
      cwd: clients,
      timeout: 180_000,
      maxBuffer: 64 * 1024 * 1024,
      env: {
        ...process.env,
        OTLP_TRACES_ENDPOINT: pipeline.tracesUrl,
        OTLP_BEARER_TOKEN: testSecrets.prod,
        PYTHONUNBUFFERED: '1',
      },
    })
    expect(stdout).toMatch(/^\d+ spans: /m)
    return JSON.parse(readFileSync(out, 'utf8')) as FixtureRequest
  }

  const storedConversation = async (sessionId: string) =>
    (await pipeline.waitForConversations([sessionId])).get(sessionId)!
  const livekitSession = (run: FixtureRequest) => traceSessionId(spans.traceIdOf(run))
  /** What a LiveKit run's conversation row holds whatever the session did. */
  const livekitRun = (run: FixtureRequest) => ({
    source: 'prod',
    agent_id: 'harbor-weather-agent', // no job: no lk.agent_name, the service name
    ...storedOrigin('livekit-agents', 'livekit-agents-1.7', spans.traceIdOf(run)),
    origin_framework_version: '1.7.1',
  })

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'va-otlp-frameworks-'))
    pipeline = await startOtlpPipeline('otlp-frameworks')
    // Side by side: Pipecat's call is mostly waiting on its timeline.
    ;[pipecat, livekit, livekitVoice] = await Promise.all([
      runFramework('pipecat', 'pipecat_client.run_pipeline'),
      runFramework('livekit', 'livekit_client.run_session'),
      runFramework('livekit', 'livekit_client.run_voice_session'),
    ])
  }, 900_000)
  afterAll(async () => {
    await pipeline?.stop()
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })

  describe('Pipecat 1.7.0: PipelineWorker(enable_tracing=True) with stand-in services', () => {
    const sessionId = 'c2b1e7a4-5d0f-4f3e-9a51-0d6c2f8e1b37' // the runner's conversation_id

    it('arrives as one conversation with its turns, tool call and interruption', async () => {
      const row = await storedConversation(sessionId)
      expect(row).toMatchObject({
        source: 'prod',
        agent_id: 'harbor-weather-bot',
        ...storedOrigin('pipecat', 'pipecat-1.x', spans.traceIdOf(pipecat)),
        user_turn_count: 3,
        agent_turn_count: 5,
        tool_call_count: 1,
        interruption_count: 1,
      })
      expect(spans.named(pipecat, 'turn')).toHaveLength(4)
    })

    it("stores each turn's transcript and latencies as the framework's spans say", async () => {
      const items = await pipeline.rows('conversation_items', sessionId)
      spans.expectPipecatItems(items, pipecat)
      const users = items.filter((item) => item.role === 'User')
      expect(users.map((item) => item.content)).toEqual(theCallersWords)
      // The stand-ins' timeline: the transcript 0.12 s after VAD stop (0.2 s after speech end),
      // the LLM's first token after 0.35 s, the TTS's first audio after 0.18 s.
      for (const user of users) expect(user.transcription_delay).toBeGreaterThan(0.3)
      const replies = items.filter((item) => item.role === 'Assistant' && item.kind === 'Message')
      for (const reply of replies) {
        expect(reply.llm_node_ttft).toBeGreaterThan(0.34)
        expect(reply.tts_node_ttfb).toBeGreaterThan(0.17)
      }
      expect(replies.filter((item) => item.e2e_latency !== null)).toHaveLength(3)
      expect(replies.find((item) => item.interrupted === true)?.content).toMatch(/^Once upon a time/)
    })

    it('stores the tool call read from the next llm span', async () => {
      const [call, ...more] = await pipeline.rows('tool_calls', sessionId)
      expect(more).toEqual([])
      expect(call).toMatchObject({
        tool_call_id: 'call_weather_1',
        tool_name: 'get_weather',
        tool_arguments_json: '{"location": "Tokyo"}',
        tool_output: 'The weather in Tokyo is sunny today, 24 degrees.',
      })
    })
  })

  describe('LiveKit Agents 1.7.1: AgentSession in text mode with a stand-in LLM', () => {
    it('arrives as one conversation, its framework version from the resource', async () => {
      const row = await storedConversation(livekitSession(livekit))
      expect(row).toMatchObject({
        ...livekitRun(livekit),
        agent_name: 'weather_agent',
        user_turn_count: 3,
        agent_turn_count: 5,
        tool_call_count: 2,
        handoff_count: 1,
        interruption_count: 0,
      })
      // Text mode: no user_turn, user_speaking or tts_node spans (no STT, VAD or TTS), no e2e latency.
      for (const name of ['user_turn', 'user_speaking', 'tts_node'])
        expect(spans.named(livekit, name)).toEqual([])
      expect(spans.named(livekit, 'agent_speaking').length).toBeGreaterThan(0)
    })

    it('stores the user text turns and the replies with their TTFT and playout times', async () => {
      const items = await pipeline.rows('conversation_items', livekitSession(livekit))
      spans.expectLiveKitItems(items, livekit)
      expect(items.filter((item) => item.role === 'User').map((item) => item.content)).toEqual(
        spans.named(livekit, 'agent_turn').flatMap((turn) => {
          const said = spans.attribute(turn, 'lk.pii.user_input')
          return said === undefined ? [] : [said]
        }),
      )
      expect(items.filter((item) => item.role === 'User').map((item) => item.content)).toEqual([
        "What's the weather in Oslo?",
        'Can I talk to someone about my invoice?',
        'Why was I charged twice in March?',
      ])
      const replies = items.filter((item) => item.role === 'Assistant' && item.kind === 'Message')
      for (const reply of replies) expect(reply.llm_node_ttft).toBeGreaterThan(0.11) // the stand-in's 0.12 s
    })

    it('stores both tool calls and the handoff to the billing agent', async () => {
      const calls = await pipeline.rows('tool_calls', livekitSession(livekit))
      spans.expectLiveKitToolCalls(calls, livekit)
      expect(calls.map((call) => [call.tool_name, call.tool_arguments_json, call.tool_output])).toEqual([
        ['get_weather', '{"location": "Oslo"}', 'The weather in Oslo is light rain today, 9 degrees.'],
        ['transfer_to_billing', '{}', ''],
      ])
      const handoffs = await pipeline.rows('handoffs', livekitSession(livekit))
      expect(handoffs).toHaveLength(1)
      expect(handoffs[0]).toMatchObject({ to_agent_id: 'billing_agent' })
    })
  })

  describe('LiveKit Agents 1.7.1: a voice session with stand-in audio, VAD, STT, LLM and TTS', () => {
    const sessionOf = () => livekitSession(livekitVoice)

    it('arrives as one conversation with its user turns, tool call and interruption', async () => {
      const row = await storedConversation(sessionOf())
      expect(row).toMatchObject({
        ...livekitRun(livekitVoice),
        user_turn_count: 3,
        agent_turn_count: 5,
        tool_call_count: 1,
        interruption_count: 1,
        handoff_count: 0,
      })
      for (const name of ['user_turn', 'user_speaking', 'tts_node'])
        expect(spans.named(livekitVoice, name).length).toBeGreaterThan(0)
      // Speaking times from user_speaking and agent_speaking: the turn-taking figures.
      expect(Number(row.caller_talk_ms)).toBeGreaterThan(3000)
      expect(Number(row.agent_talk_ms)).toBeGreaterThan(5000)
    })

    it("stores each turn's speech latencies as the framework measured them", async () => {
      const items = await pipeline.rows('conversation_items', sessionOf())
      spans.expectLiveKitItems(items, livekitVoice)
      const users = items.filter((item) => item.role === 'User')
      expect(users.map((item) => item.content)).toEqual(theCallersWords)
      // The stand-ins: the VAD ends speech after 0.25 s of silence, the STT answers 0.1 s later;
      // the framework's endpointing waits 0.5 s; the LLM's first token comes after 0.12 s, the TTS's
      // first audio after 0.15 s.
      for (const user of users) {
        expect(user.transcription_delay).toBeGreaterThan(0.3)
        expect(user.end_of_turn_delay).toBeGreaterThanOrEqual(0.5)
        expect(user.transcript_confidence).toBeCloseTo(0.92, 5)
      }
      const replies = items.filter((item) => item.role === 'Assistant' && item.kind === 'Message')
      expect(replies.filter((item) => item.e2e_latency !== null)).toHaveLength(3)
      for (const reply of replies) expect(reply.tts_node_ttfb).toBeGreaterThan(0.14)
      expect(replies.find((item) => item.interrupted === true)?.content).toMatch(/^Once upon a time/)
      spans.expectLiveKitToolCalls(await pipeline.rows('tool_calls', sessionOf()), livekitVoice)
    })
  })
})
