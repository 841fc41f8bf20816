import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEventCodec, createSchemaRegistry, type EventCodec } from '../../core/event/event-codec.ts'
import { fromAvroRecord, toAvroRecord } from '../../core/event/event-record.ts'
import { validateConversationComplete } from '../../core/event/event-validation.ts'
import { type BatchProducer, createBatchProducer } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { conversationCompleteSubject } from '../../core/kafka/topics.ts'
import { loadFixture } from '../fixtures/index.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { createTestTopic, readTopic, testKafka } from '../support/kafka-test-helpers.ts'

describe('ConversationComplete as Avro through real Kafka and the real schema registry', () => {
  let kafka: KafkaSettings
  let producer: BatchProducer
  let codec: EventCodec
  let topic: string

  beforeAll(async () => {
    codec = await createEventCodec(createSchemaRegistry(schemaRegistryUrl()))
    kafka = testKafka()
    topic = await createTestTopic(kafka, 'roundtrip')
    producer = createBatchProducer(kafka)
    await producer.connect([topic])
  })
  afterAll(async () => {
    await producer?.disconnect()
  })

  it('registers the schema under the contract subject with BACKWARD compatibility', async () => {
    const base = schemaRegistryUrl()
    const latest = await fetch(`${base}/subjects/${conversationCompleteSubject}/versions/latest`)
    expect(latest.status).toBe(200)
    const body = (await latest.json()) as { id: number; subject: string; schema: string }
    expect(body.subject).toBe(conversationCompleteSubject)
    expect(body.id).toBe(codec.schemaId)
    expect(JSON.parse(body.schema).name).toBe('ConversationComplete')
    const config = await fetch(`${base}/config/${conversationCompleteSubject}`)
    expect(((await config.json()) as { compatibilityLevel: string }).compatibilityLevel).toBe('BACKWARD')
  })

  it('writes a full event plus unknown fields and reads it back equal, in the Confluent wire format', async () => {
    const events = [loadFixture('full'), loadFixture('unknown-fields')]
    for (const event of events) expect(validateConversationComplete(event)).toEqual([])
    const receivedAt = Date.parse('2026-11-22T10:00:00.123Z')
    const values = await Promise.all(
      events.map((event) => codec.encode(toAvroRecord(event, { source: 'prod', receivedAt }))),
    )
    await producer.sendBatch([
      {
        topic,
        messages: events.map((event, index) => ({ key: event.data.session_id, value: values[index]! })),
      },
    ])

    const reader = await readTopic(kafka, topic)
    try {
      const messages = await reader.waitFor((received) => received.length >= events.length)
      expect(messages).toHaveLength(events.length)
      for (const message of messages) {
        const value = message.value!
        expect(value[0]).toBe(0) // magic byte
        expect(value.readInt32BE(1)).toBe(codec.schemaId)
        const { event, ingest } = fromAvroRecord(await codec.decode(value))
        const sent = events.find((candidate) => candidate.data.session_id === message.key!.toString())
        expect(sent).toBeDefined()
        expect(event).toEqual(sent)
        expect(ingest).toEqual({ source: 'prod', receivedAt })
      }
    } finally {
      await reader.stop()
    }
  })
})
