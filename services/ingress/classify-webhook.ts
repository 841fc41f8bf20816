import type { ConversationCompleteEvent } from '../core/event/conversation-complete.types.ts'
import type { AvroRecord } from '../core/event/event-record.ts'
import { isPlainObject, type Problem, validateToAvro } from '../core/event/event-validation.ts'
import { badRequest } from './ingress-errors.ts'

// What a parsed webhook body is, and so where it goes: a ConversationComplete that fits the
// schema (the event topic), one that does not (quarantine, with its problems), another event
// kind (its own topic), or something unusable (400; throws).
export const conversationCompleteEventName = 'ConversationComplete'

export type Classified =
  | {
      kind: 'conversation'
      sessionId: string
      event: ConversationCompleteEvent
      /** Its Avro record, built by the validation walk (no ingestion metadata yet). */
      record: AvroRecord
    }
  | { kind: 'quarantine'; sessionId: string; problems: Problem[] }
  | { kind: 'other'; eventName: string; sessionId: string | null }

export function classifyWebhook(body: unknown): Classified {
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
  const { problems, record } = validateToAvro(body)
  if (problems.length > 0) return { kind: 'quarantine', sessionId, problems }
  return { kind: 'conversation', sessionId, event: body as ConversationCompleteEvent, record }
}
