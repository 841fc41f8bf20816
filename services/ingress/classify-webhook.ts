import type { IngestMetadata } from '../../core/event/event-record.ts'
import { isPlainObject, type Problem } from '../../core/event/event-validation.ts'
import { validateAndEncode } from '../../core/event/validating-event-encoder.ts'
import { badRequest } from './ingress-errors.ts'

// What a parsed webhook body is, and so where it goes: a ConversationComplete that fits the
// schema (the event topic), one that does not (quarantine, with its problems), another event
// kind (its own topic), or something unusable (400; throws).
export const conversationCompleteEventName = 'ConversationComplete'

export type Classified =
  | {
      kind: 'conversation'
      sessionId: string
      /** Its Avro record with the ingestion metadata, written by the validation walk after room for
       *  the wire header (writeWireHeader fills it in once the schema id is known). */
      avro: Buffer
    }
  | { kind: 'quarantine'; sessionId: string; problems: Problem[] }
  | { kind: 'other'; eventName: string; sessionId: string | null }

export function classifyWebhook(body: unknown, ingest: IngestMetadata): Classified {
  if (!isPlainObject(body))
    throw badRequest('body must be a JSON object', [{ path: '', problem: 'expected object' }])
  const data = body.data
  const sessionId = isPlainObject(data) && typeof data.session_id === 'string' ? data.session_id : null
  if (typeof body.event === 'string' && body.event !== conversationCompleteEventName)
    return { kind: 'other', eventName: body.event, sessionId }
  if (!isPlainObject(data))
    throw badRequest('data must be a JSON object', [{ path: 'data', problem: 'expected object' }])
  if (sessionId === null || sessionId.trim() === '')
    throw badRequest('data.session_id must be a non-empty string', [
      { path: 'data.session_id', problem: 'required non-empty string' },
    ])
  const { problems, value } = validateAndEncode(body, ingest)
  if (value === undefined) return { kind: 'quarantine', sessionId, problems }
  return { kind: 'conversation', sessionId, avro: value }
}
