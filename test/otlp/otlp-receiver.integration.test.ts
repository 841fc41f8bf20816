import { execFile, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSchemaRegistry } from '../../core/event/event-codec.ts'
import type { ConsumedMessage } from '../../core/kafka/partition-batches.ts'
import { topics } from '../../core/kafka/topics.ts'
import type { OtlpSpans } from '../../core/otlp/otlp-spans.ts'
import { otlpTracesRoute } from '../../services/ingress/otlp-route.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { startTestIngress, type TestIngress, testSecrets } from '../support/ingress-test-server.ts'
import { endOffsets, readTopic, testKafka } from '../support/kafka-test-helpers.ts'
import { exportWithJs, readableSpans, readFixture } from '../support/otlp-js-exporter.ts'
import { otlpPython } from '../support/otlp-pipeline.ts'
import { encodeOtlpJsonAsProtobuf } from '../support/otlp-proto-types.ts'
import { createPrivateKafka, type PrivateKafka } from '../support/private-kafka.ts'

// The real exporters against a real ingress, Kafka and registry: the OpenTelemetry JS SDK's
// protobuf and JSON exporters and the Python SDK's protobuf exporter (installed by
// scripts/ensure-otlp-python.sh, pinned) send the frameworks' span trees; the topic is read back:
// one message per trace keyed by trace id, every span there, the PII policy applied. Then Kafka
// goes away: the answer is 503 + Retry-After, and the Python exporter's retries succeed once it
// is back.
const run = promisify(execFile)
const sendFixture = fileURLToPath(new URL('./clients/send_fixture.py', import.meta.url))
const fixturePath = (name: string) => fileURLToPath(new URL(`../fixtures/otlp/${name}.json`, import.meta.url))

const livekit = readFixture('livekit-1.x-conversation')
const pipecat = readFixture('pipecat-conversation')
const livekitTrace = livekit.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.traceId
const pipecatTrace = pipecat.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.traceId
const spanCount = (request: typeof livekit) =>
  request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)).length

const registry = createSchemaRegistry(schemaRegistryUrl())
const decode = async (message: ConsumedMessage) => (await registry.decode(message.value!)) as OtlpSpans
const keyOf = (message: ConsumedMessage) => message.key?.toString()

describe('OTLP receiver with the real exporters, Kafka and registry', () => {
  let ingress: TestIngress
  let python: string
  beforeAll(async () => {
    python = await otlpPython('exporter')
    ingress = await startTestIngress({ PII_POLICY: 'staging:content=drop,tools=drop' })
    await ingress.waitUntilReady()
  })
  afterAll(async () => {
    await ingress?.close()
  })

  /** What one export put on the topic: 200 means Kafka holds all of it, so it is read once there. */
  async function sentSpans(send: () => Promise<void>, traceId: string) {
    const kafka = testKafka()
    const reader = await readTopic(kafka, topics.otlpSpans, await endOffsets(kafka, topics.otlpSpans))
    try {
      await send()
      const messages = await reader.waitFor((received) =>
        received.some((message) => keyOf(message) === traceId),
      )
      const mine = messages.filter((message) => keyOf(message) === traceId)
      return { messages: mine, decoded: await Promise.all(mine.map(decode)) }
    } finally {
      await reader.stop()
    }
  }

  it('takes the JS protobuf exporter: every LiveKit span in one message keyed by its trace id', async () => {
    const { messages, decoded } = await sentSpans(async () => {
      const result = await exportWithJs(readableSpans(livekit), {
        url: `${ingress.url}${otlpTracesRoute}`,
        token: testSecrets.prod,
        encoding: 'protobuf',
      })
      expect(result).toEqual({ code: 0 })
    }, livekitTrace)
    expect(messages).toHaveLength(1)
    expect(messages[0]!.value!.readInt32BE(1)).toBeGreaterThan(0) // Confluent wire format: magic 0, schema id
    expect(messages[0]!.value![0]).toBe(0)
    const [message] = decoded
    expect(message!.source).toBe('prod')
    expect(message!.spans.map((span) => span.span_id).sort()).toEqual(
      livekit.resourceSpans[0]!.scopeSpans.flatMap((scope) => scope.spans.map((span) => span.spanId)).sort(),
    )
    const session = message!.spans.find((span) => span.name === 'agent_session')!
    expect(session.start_time_us).toBe(
      Number(BigInt(livekit.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.startTimeUnixNano) / 1000n),
    )
    expect(session.attributes.find((a) => a.key === 'lk.pii.room_name')?.string_value).toBe(
      'harbor-weather-call-4f7d2a',
    )
    expect(message!.resource_attributes.find((a) => a.key === 'service.name')).toBeDefined()
  })

  it("takes the JS JSON exporter and applies the staging source's PII policy before Kafka", async () => {
    const { messages, decoded } = await sentSpans(async () => {
      const result = await exportWithJs(readableSpans(pipecat), {
        url: `${ingress.url}${otlpTracesRoute}`,
        token: testSecrets.staging,
        encoding: 'json',
      })
      expect(result).toEqual({ code: 0 })
    }, pipecatTrace)
    expect(decoded.flatMap((m) => m.spans)).toHaveLength(spanCount(pipecat))
    for (const message of messages) {
      expect(String(message.headers?.['va-pii-policy'])).toMatch(/content=drop,audio_url=keep,tools=drop/)
      const bytes = message.value!.toString('latin1')
      for (const text of ['Tokyo', 'sunny', 'Harbor Radio']) expect(bytes.includes(text), text).toBe(false)
    }
    const keys = new Set(decoded.flatMap((m) => m.spans.flatMap((span) => span.attributes.map((a) => a.key))))
    for (const removed of ['transcript', 'input', 'output', 'text'])
      expect(keys.has(removed), removed).toBe(false)
    expect(keys.has('turn.user_bot_latency_seconds')).toBe(true)
  })

  it('takes the Python OTLP/HTTP exporter (opentelemetry-exporter-otlp-proto-http, gzip)', async () => {
    const { decoded } = await sentSpans(async () => {
      const { stdout } = await run(python, [
        sendFixture,
        fixturePath('livekit-1.x-conversation'),
        `${ingress.url}${otlpTracesRoute}`,
        testSecrets.prod,
      ])
      expect(stdout.trim()).toBe(`accepted ${spanCount(livekit)} spans`)
    }, livekitTrace)
    const spans = decoded.flatMap((m) => m.spans)
    expect(new Set(spans.map((span) => span.span_id)).size).toBe(spanCount(livekit))
    expect(
      spans
        .find((span) => span.name === 'user_turn')
        ?.attributes.find((a) => a.key === 'lk.transcript_confidence'),
    ).toMatchObject({ double_value: 0 })
  })
})

describe('OTLP receiver while Kafka is away', () => {
  let kafka: PrivateKafka
  let ingress: TestIngress
  let python: string
  beforeAll(async () => {
    python = await otlpPython('exporter')
    kafka = await createPrivateKafka()
    await kafka.start()
    ingress = await startTestIngress({ KAFKA_BROKERS: kafka.brokers, INGRESS_PUBLISH_TIMEOUT_MS: '3000' })
    await ingress.waitUntilReady()
  })
  afterAll(async () => {
    await ingress?.close()
    await kafka?.remove()
  })

  it('answers 503 + Retry-After (never 429), and the exporter succeeds once Kafka is back', async () => {
    await kafka.stop()
    const response = await fetch(`${ingress.url}${otlpTracesRoute}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${testSecrets.prod}` },
      body: JSON.stringify(pipecat),
    })
    expect(response.status).toBe(503)
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await response.json()).toEqual({ code: 14, message: expect.stringMatching(/retry later/) })

    // The Python exporter (1.45: retries 503 honouring Retry-After) sends while Kafka is down...
    const exporter = spawn(python, [
      sendFixture,
      fixturePath('pipecat-conversation'),
      `${ingress.url}${otlpTracesRoute}`,
      testSecrets.prod,
      '120',
    ])
    let output = ''
    exporter.stdout.on('data', (chunk) => {
      output += chunk
    })
    const exited = new Promise<number | null>((resolve) => exporter.once('exit', resolve))
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    // ...and Kafka comes back within its retries.
    await kafka.start()
    expect(await exited).toBe(0)
    expect(output.trim()).toBe(`accepted ${spanCount(pipecat)} spans`)

    const reader = await readTopic(testKafka(kafka.brokers), topics.otlpSpans)
    try {
      const messages = await reader.waitFor(
        (received) => received.some((message) => keyOf(message) === pipecatTrace),
        60_000,
      )
      const spans = (
        await Promise.all(messages.filter((m) => keyOf(m) === pipecatTrace).map(decode))
      ).flatMap((m) => m.spans)
      expect(new Set(spans.map((span) => span.span_id)).size).toBe(spanCount(pipecat))
    } finally {
      await reader.stop()
    }
  })

  it('answers a protobuf request 200 with a protobuf content type once Kafka is back', async () => {
    const response = await fetch(`${ingress.url}${otlpTracesRoute}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${testSecrets.prod}` },
      body: encodeOtlpJsonAsProtobuf(pipecat),
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/x-protobuf')
  })
})
