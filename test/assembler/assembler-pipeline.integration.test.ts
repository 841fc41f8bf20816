import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSchemaRegistry } from '../../core/event/event-codec.ts'
import type { OtlpSpans } from '../../core/otlp/otlp-spans.ts'
import { createOtlpSpansCodec } from '../../core/otlp/otlp-spans-codec.ts'
import { createMetricsRegistry, type Registry } from '../../core/runtime/metrics.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { type RunningAssembler, startAssembler } from '../../services/assembler/assembler.ts'
import { traceSessionId } from '../../services/assembler/mapping/session-id.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import { createTestTopic } from '../support/kafka-test-helpers.ts'
import {
  livekitFixtureFile,
  pipecatFixtureFile,
  readOtlpFixture,
  splitIntoBatches,
} from '../support/otlp-fixture.ts'
import { waitFor } from '../support/wait-for.ts'
import { startWorkerFixture, type WorkerFixture } from '../support/worker-fixture.ts'
import { testLogger, workerEnv } from '../support/worker-settings.ts'

// The assembler between real servers: the fixtures' spans published to a spans topic as the
// receiver would (Avro OtlpSpans through the registry, split into several messages per trace, out
// of order, the root last), the assembler and the worker running, the conversations read back from
// the embedded ClickHouse. A late span replaces the conversation; a restart before emission loses
// nothing.
describe('assembler: OTLP spans to conversation rows', () => {
  let fixture: WorkerFixture
  let spansTopic: string
  let encode: (message: OtlpSpans) => Buffer
  const assemblers: RunningAssembler[] = []
  const livekit = readOtlpFixture(livekitFixtureFile, 'lk')[0]!
  const pipecat = readOtlpFixture(pipecatFixtureFile, 'pc')[0]!
  const livekitSession = traceSessionId(livekit.trace_id)
  const pipecatSession = 'c2b1e7a4-5d0f-4f3e-9a51-0d6c2f8e1b37'

  const start = async (extra: Record<string, string> = {}, registry?: Registry) => {
    const env = workerEnv(fixture.topic, fixture.dataDir, {
      ASSEMBLER_TOPIC: spansTopic,
      ASSEMBLER_OUTPUT_TOPIC: fixture.topic,
      ASSEMBLER_DLQ_TOPIC: `${spansTopic}.dlq`,
      ASSEMBLER_GROUP_ID: `va-test-assembler-${spansTopic}`,
      ASSEMBLER_METRICS_PORT: '0',
      ASSEMBLER_ROOT_GRACE_MS: '300',
      ...extra,
    })
    const assembler = await startAssembler(loadConfig(env), testLogger(), { registry, tickMs: 50 })
    assemblers.push(assembler)
    return assembler
  }
  const publish = async (messages: OtlpSpans[]) => {
    for (const message of messages)
      await fixture.producer.sendBatch([
        { topic: spansTopic, messages: [{ key: message.trace_id, value: encode(message) }] },
      ])
  }
  const conversations = () =>
    queryRows<Record<string, unknown>>(
      fixture.clickhouse,
      `SELECT * FROM ${database}.conversations FINAL ORDER BY session_id`,
    )
  const items = (sessionId: string) =>
    queryRows<Record<string, unknown>>(
      fixture.clickhouse,
      `SELECT * FROM ${database}.conversation_items FINAL WHERE session_id = {s:String} ORDER BY item_index`,
      { s: sessionId },
    )

  beforeAll(async () => {
    fixture = await startWorkerFixture('assembler', 1)
    spansTopic = await createTestTopic(fixture.kafka, 'otlp-spans', 2)
    encode = (await createOtlpSpansCodec(createSchemaRegistry(schemaRegistryUrl()))).encode
    await fixture.startWorker()
  })
  afterAll(async () => {
    for (const assembler of assemblers) await assembler.stop()
    await fixture?.stop()
  })

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
      fixture.clickhouse,
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
    for (const assembler of assemblers.splice(0)) await assembler.stop()
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
    await first.stop()
    assemblers.splice(assemblers.indexOf(first), 1)
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
