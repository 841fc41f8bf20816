import { type EventCodec, writeWireHeader } from '../../core/event/event-codec.ts'
import { topics } from '../../core/kafka/topics.ts'
import type { OutgoingMessage } from './batching-producer.ts'
import type { Classified } from './classify-webhook.ts'

// A classified webhook as the Kafka message that stores it. Conversations become Avro (the
// contract); quarantined and other-kind events keep the exact bytes the platform sent, with
// what we know in headers, so they can be fixed and replayed.
export const maxProblemsInHeader = 50

export function toKafkaMessage(
  classified: Classified,
  rawBody: Buffer,
  source: string,
  receivedAt: number,
  codec: EventCodec,
): { topic: string; message: OutgoingMessage } {
  switch (classified.kind) {
    case 'conversation':
      return {
        topic: topics.conversationComplete,
        message: {
          key: classified.sessionId,
          value: writeWireHeader(classified.avro, codec.schemaId),
        },
      }
    case 'quarantine':
      return {
        topic: topics.quarantine,
        message: {
          key: classified.sessionId,
          value: rawBody,
          headers: {
            'va-source': source,
            'va-received-at': new Date(receivedAt).toISOString(),
            'va-problem-count': String(classified.problems.length),
            'va-problems': JSON.stringify(classified.problems.slice(0, maxProblemsInHeader)),
          },
        },
      }
    case 'other':
      return {
        topic: topics.otherEvents,
        message: {
          key: classified.sessionId,
          value: rawBody,
          headers: {
            'va-source': source,
            'va-received-at': new Date(receivedAt).toISOString(),
            'va-event': classified.eventName,
          },
        },
      }
  }
}
