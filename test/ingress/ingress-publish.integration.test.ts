import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEventCodec, createSchemaRegistry, type EventCodec } from '../../core/event/event-codec.ts'
import { fromAvroRecord } from '../../core/event/event-record.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import type { ConsumedMessage } from '../../core/kafka/partition-batches.ts'
import { topics } from '../../core/kafka/topics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { loadAllFixtures } from '../fixtures/index.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { asDecoded } from '../support/as-decoded.ts'
import { postJson, startTestIngress, type TestIngress, testSecrets } from '../support/ingress-test-server.ts'
import { endOffsets, readTopic, testKafka } from '../support/kafka-test-helpers.ts'

// Webhooks in through a real ingress, out of real Kafka: every field comes back, unknown ones too.
// (Which source a token names, and the rest of the HTTP contract: test/ingress/*.unit.test.ts.)
describe('ingress publishes what the platform sends to Kafka', () => {
  let ingress: TestIngress
  let kafka: KafkaSettings
  let codec: EventCodec

  beforeAll(async () => {
    ingress = await startTestIngress()
    await ingress.waitUntilReady()
    kafka = testKafka()
    codec = await createEventCodec(createSchemaRegistry(schemaRegistryUrl()))
  })
  afterAll(async () => {
    await ingress?.close()
  })

  async function postAndRead(topic: string, bodies: unknown[], token = testSecrets.prod) {
    const start = await endOffsets(kafka, topic)
    const responses = await Promise.all(bodies.map((body) => postJson(ingress.webhookUrl(token), body)))
    const reader = await readTopic(kafka, topic, start)
    try {
      const messages = await reader.waitFor((received) => received.length >= bodies.length)
      return { responses, messages: [...messages] }
    } finally {
      await reader.stop()
    }
  }

  it('answers 202 after Kafka has each fixture, and the topic holds it equal, every field and unknown ones', async () => {
    const fixtures = loadAllFixtures()
    const generated = generateConversations({ count: 20, seed: 7, historyItems: 40, unknownFieldRate: 0.5 })
    const events = [...Object.values(fixtures), ...generated]
    const { responses, messages } = await postAndRead(topics.conversationComplete, events)
    for (const [index, response] of responses.entries()) {
      expect(response.status).toBe(202)
      expect(await response.json()).toEqual({
        status: 'accepted',
        session_id: events[index]!.data.session_id,
      })
    }
    expect(messages).toHaveLength(events.length)
    const bySession = new Map<string, ConsumedMessage>(
      messages.map((message) => [message.key!.toString(), message]),
    )
    for (const event of events) {
      const message = bySession.get(event.data.session_id)
      expect(message, event.data.session_id).toBeDefined()
      expect(message!.value!.readInt32BE(1)).toBe(codec.schemaId)
      const decoded = fromAvroRecord(await codec.decode(message!.value!))
      expect(decoded.event).toEqual(asDecoded(event))
      expect(decoded.ingest.source).toBe('prod')
      expect(decoded.ingest.receivedAt).toBeGreaterThan(Date.now() - 120_000)
    }
  })

  it('quarantines a ConversationComplete that misfits the schema, keeping its bytes and problems', async () => {
    const [event] = generateConversations({ count: 1, seed: 12 })
    const misfit = { ...event!, data: { ...event!.data, duration_seconds: 'ninety', agent_id: 'not-a-uuid' } }
    const { responses, messages } = await postAndRead(topics.quarantine, [misfit])
    expect(responses[0]!.status).toBe(202)
    expect(await responses[0]!.json()).toEqual({ status: 'quarantined', session_id: event!.data.session_id })
    const [message] = messages
    expect(JSON.parse(message!.value!.toString())).toEqual(misfit)
    expect(message!.key!.toString()).toBe(event!.data.session_id)
    expect(JSON.parse(message!.headers!['va-problems']!.toString())).toEqual([
      { path: 'data.agent_id', problem: 'expected a UUID' },
      { path: 'data.duration_seconds', problem: 'expected number, got string' },
    ])
    expect(message!.headers!['va-source']!.toString()).toBe('prod')
  })

  it('writes other event kinds raw to their own topic', async () => {
    const other = {
      event: 'CallStarted',
      data: { session_id: 'a8f5f167-f44f-4964-8e5a-3f1d2c3b4a59', note: 'new kind' },
    }
    const { responses, messages } = await postAndRead(topics.otherEvents, [other])
    expect(responses[0]!.status).toBe(202)
    expect(await responses[0]!.json()).toEqual({ status: 'accepted', event: 'CallStarted' })
    expect(JSON.parse(messages[0]!.value!.toString())).toEqual(other)
    expect(messages[0]!.headers!['va-event']!.toString()).toBe('CallStarted')
  })

  it('counts every outcome in /metrics and keeps tokens out of the log', async () => {
    const metrics = await (await fetch(`${ingress.url}/metrics`)).text()
    expect(metrics).toMatch(/ingress_events_total\{outcome="accepted",reason="none",service="ingress"\} \d+/)
    expect(metrics).toMatch(/ingress_events_total\{outcome="quarantined",reason="none",service="ingress"\} 1/)
    expect(metrics).toMatch(
      /ingress_events_total\{outcome="other",reason="other_event_kind",service="ingress"\} 1/,
    )
    expect(metrics).toMatch(
      /ingress_publish_duration_seconds_count\{[^}]*topic="voice\.conversation-complete\.v1"[^}]*\} [1-9]/,
    )
    expect(metrics).toContain('process_resident_memory_bytes')
    const log = ingress.logs.join('')
    expect(log.length).toBeGreaterThan(0)
    expect(log).not.toContain(testSecrets.prod)
    expect(log).not.toContain(testSecrets.staging)
  })
})
