import { describe, expect, it } from 'vitest'
import type { OtlpSpans } from '../../core/otlp/otlp-spans.ts'
import { createMetricsRegistry } from '../../core/runtime/metrics.ts'
import { traceSessionId } from '../../services/assembler/mapping/session-id.ts'
import { assemblerRig } from '../support/assembler-rig.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import {
  livekitFixtureFile,
  pipecatFixtureFile,
  readOtlpFixture,
  splitIntoBatches,
} from '../support/otlp-fixture.ts'
import { waitFor } from '../support/wait-for.ts'

// The assembler between real servers: the fixtures' spans published to a spans topic as the
// receiver would (Avro OtlpSpans through the registry, split into several messages per trace, out
// of order, the root last), the assembler and the worker running, the conversations read back from
// the embedded ClickHouse. A late span replaces the conversation; a restart before emission loses
// nothing.
describe('assembler: OTLP spans to conversation rows', () => {
  const rig = assemblerRig('assembler')
  const { start, publish } = rig
  const livekit = readOtlpFixture(livekitFixtureFile, 'lk')[0]!
  const pipecat = readOtlpFixture(pipecatFixtureFile, 'pc')[0]!
  const livekitSession = traceSessionId(livekit.trace_id)
  const pipecatSession = 'c2b1e7a4-5d0f-4f3e-9a51-0d6c2f8e1b37'

  const conversations = () =>
    queryRows<Record<string, unknown>>(
      rig.worker.clickhouse,
      `SELECT * FROM ${database}.conversations FINAL ORDER BY session_id`,
    )
  const items = (sessionId: string) =>
    queryRows<Record<string, unknown>>(
      rig.worker.clickhouse,
      `SELECT * FROM ${database}.conversation_items FINAL WHERE session_id = {s:String} ORDER BY item_index`,
      { s: sessionId },
    )

  it('stores the LiveKit and the Pipecat conversation with latencies, tool calls, speaking times and origin', async () => {
    await start()
    // Out of order: parts 3, 1, 4, 2, then the part with the root.
    const order = (parts: OtlpSpans[]) => [parts[2]!, parts[0]!, parts[3]!, parts[1]!, parts[4]!]
    await publish(order(splitIntoBatches(livekit, 5, 'agent_session')))
    await publish(order(splitIntoBatches(pipecat, 5, 'conversation')))
    const rows = await waitFor(conversations, (found) => found.length === 2, 60_000, 'two conversations')
    const byId = new Map(rows.map((row) => [row.session_id as string, row]))
    expect(byId.get(livekitSession)).toMatchObject({
      agent_id: 'harbor-weather',
      source: 'lk',
      origin_kind: 'otlp',
      origin_framework: 'livekit-agents',
      origin_mapping: 'livekit-agents-1.7',
      origin_trace_id: livekit.trace_id,
      origin_complete: true,
      origin_framework_version: null,
      user_turn_count: 3,
      agent_turn_count: 5,
      tool_call_count: 1,
      interruption_count: 1,
    })
    expect(byId.get(pipecatSession)).toMatchObject({
      agent_id: 'harbor-weather-bot',
      origin_framework: 'pipecat',
      origin_mapping: 'pipecat-1.x',
      user_turn_count: 3,
      tool_call_count: 1,
    })
    expect(Number(byId.get(livekitSession)!.caller_talk_ms)).toBeGreaterThan(0)
    expect(Number(byId.get(livekitSession)!.agent_talk_ms)).toBeGreaterThan(0)

    const livekitItems = await items(livekitSession)
    const reply = livekitItems.find((item) => item.content === 'Let me check that for you.')!
    expect(reply.e2e_latency).toBeCloseTo(0.7183, 3)
    expect(reply.llm_node_ttft).toBeCloseTo(0.102, 3)
    expect(reply.tts_node_ttfb).toBeCloseTo(0.2018, 3)
    expect(reply.started_speaking_at).not.toBeNull()
    expect(reply.stopped_speaking_at).not.toBeNull()
    const output = livekitItems.find((item) => item.kind === 'FunctionCallOutput')!
    expect(output.tool_output).toBe('The weather in Tokyo is sunny today, 24 degrees.')
    const [call] = await queryRows<Record<string, unknown>>(
      rig.worker.clickhouse,
      `SELECT * FROM ${database}.tool_calls FINAL WHERE session_id = {s:String}`,
      { s: pipecatSession },
    )
    expect(call).toMatchObject({
      tool_name: 'get_weather',
      tool_arguments_json: '{"location": "Tokyo"}',
      tool_output: 'The weather in Tokyo is sunny today, 24 degrees.',
    })
    const pipecatItems = await items(pipecatSession)
    expect(pipecatItems.find((item) => item.interrupted === true)?.content).toMatch(/^Once upon a time/)
  })

  it('a late span makes a newer delivery that replaces the conversation, not a second one', async () => {
    const lastUserTurn = livekit.spans.filter((span) => span.name === 'user_turn').at(-1)!
    const late: OtlpSpans = {
      ...livekit,
      spans: [
        {
          ...lastUserTurn,
          span_id: 'aaaaaaaaaaaaaaaa',
          start_time_us: lastUserTurn.start_time_us + 5_000_000,
          end_time_us: lastUserTurn.end_time_us + 5_000_000,
          attributes: lastUserTurn.attributes.map((attribute) =>
            attribute.key === 'lk.pii.user_transcript'
              ? { ...attribute, string_value: 'One more thing.' }
              : attribute,
          ),
        },
      ],
    }
    await publish([late])
    const rows = await waitFor(
      conversations,
      (found) => found.find((row) => row.session_id === livekitSession)?.user_turn_count === 4,
      60_000,
      'the redelivered conversation',
    )
    expect(rows).toHaveLength(2)
    expect((await items(livekitSession)).some((item) => item.content === 'One more thing.')).toBe(true)
  })

  it('an assembler stopped before emitting loses nothing: the next one reads the trace again', async () => {
    await rig.stopAll()
    const traceId = 'f'.repeat(16) + livekit.trace_id.slice(16)
    const registry = createMetricsRegistry('assembler-test')
    // A grace longer than the test: this one gathers the trace and never emits it.
    const first = await start({ ASSEMBLER_ROOT_GRACE_MS: '600000' }, registry)
    await publish(splitIntoBatches({ ...livekit, trace_id: traceId }, 3, 'agent_session'))
    await waitFor(
      async () => (await registry.getSingleMetric('assembler_traces_open')!.get()).values[0]?.value ?? 0,
      (open) => open === 1,
      30_000,
      'the trace gathered',
    )
    await rig.stop(first)
    await start()
    const rows = await waitFor(
      conversations,
      (found) => found.some((row) => row.session_id === traceSessionId(traceId)),
      60_000,
      'the conversation of the trace read again',
    )
    expect(rows).toHaveLength(3)
    expect(rows.find((row) => row.session_id === traceSessionId(traceId))).toMatchObject({
      user_turn_count: 3,
    })
  })
})
