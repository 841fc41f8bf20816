import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { createEventCodec, createSchemaRegistry, type EventCodec } from '../../core/event/event-codec.ts'
import { type AvroRecord, toAvroRecord } from '../../core/event/event-record.ts'
import { withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import { committedOffsets } from '../../core/kafka/kafka-offsets.ts'
import { type BatchProducer, createBatchProducer } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { endOffsets } from './kafka-test-helpers.ts'

// Events onto a test topic the way the ingress publishes them (key session_id, Avro through the
// registry), and what Kafka then holds or a group has committed of them.

export async function testCodec(): Promise<EventCodec> {
  return createEventCodec(createSchemaRegistry(schemaRegistryUrl()))
}

export interface Sent {
  event: ConversationCompleteEvent
  record: AvroRecord
}

/** Publishes events as the ingress does: key session_id, value Avro of toAvroRecord. */
export async function produceEvents(
  producer: BatchProducer,
  codec: EventCodec,
  topic: string,
  events: readonly ConversationCompleteEvent[],
  source = 'prod',
  receivedAt: (index: number) => number = () => Date.now(),
): Promise<Sent[]> {
  const sent: Sent[] = events.map((event, index) => ({
    event,
    record: toAvroRecord(event, { source, receivedAt: receivedAt(index) }),
  }))
  for (let start = 0; start < sent.length; start += 200) {
    const chunk = sent.slice(start, start + 200)
    const values = await Promise.all(chunk.map(({ record }) => codec.encode(record)))
    await producer.sendBatch([
      {
        topic,
        messages: chunk.map(({ event }, index) => ({ key: event.data.session_id, value: values[index]! })),
      },
    ])
  }
  return sent
}

/** The ingress's producer (idempotent, acks=all), connected to the broker. */
export async function connectedProducer(kafka: KafkaSettings): Promise<BatchProducer> {
  const producer = createBatchProducer(kafka)
  await producer.connect([])
  return producer
}

/** Messages a consumer group has committed on a topic, over all partitions. */
export async function committedTotal(kafka: KafkaSettings, groupId: string, topic: string): Promise<number> {
  const committed = await withKafkaAdmin(kafka, (admin) => committedOffsets(admin, groupId, topic))
  return [...committed.values()].reduce((sum, offset) => sum + Number(offset), 0)
}

/** Messages in a topic over all partitions (e.g. a DLQ that must stay empty). */
export async function topicMessageCount(kafka: KafkaSettings, topic: string): Promise<number> {
  return [...(await endOffsets(kafka, topic)).values()].reduce((sum, offset) => sum + Number(offset), 0)
}
