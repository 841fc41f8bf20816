import { describe, expect, it } from 'vitest'
import { toAvroRecord } from '../core/event/event-record.ts'
import { classifyWebhook } from './classify-webhook.ts'

const sessionId = '0b6c3d5e-8f1a-4b2c-9d3e-4f5a6b7c8d9e'

describe('classifyWebhook', () => {
  it('passes a fitting ConversationComplete on', () => {
    const body = { event: 'ConversationComplete', data: { session_id: sessionId } }
    // With its Avro record, ingestion metadata still to come.
    const {
      source: _source,
      received_at: _receivedAt,
      ...record
    } = toAvroRecord(body, {
      source: null,
      receivedAt: null,
    })
    expect(classifyWebhook(body)).toEqual({ kind: 'conversation', sessionId, event: body, record })
  })
  it('quarantines a misfit with its problems', () => {
    expect(
      classifyWebhook({ event: 'ConversationComplete', data: { session_id: sessionId, status: 3 } }),
    ).toEqual({
      kind: 'quarantine',
      sessionId,
      problems: [{ path: 'data.status', problem: 'expected string, got number' }],
    })
  })
  it('routes another event kind aside, with or without a session id', () => {
    expect(classifyWebhook({ event: 'CallStarted', data: { session_id: 'x' } })).toEqual({
      kind: 'other',
      eventName: 'CallStarted',
      sessionId: 'x',
    })
    expect(classifyWebhook({ event: 'Ping' })).toEqual({ kind: 'other', eventName: 'Ping', sessionId: null })
  })
  it.each([
    ['an array', [], ''],
    ['no data', { event: 'ConversationComplete' }, 'data'],
    ['data null', { event: 'ConversationComplete', data: null }, 'data'],
    ['no session id', { event: 'ConversationComplete', data: {} }, 'data.session_id'],
    ['a blank session id', { event: 'ConversationComplete', data: { session_id: '' } }, 'data.session_id'],
  ])('refuses %s, naming the path', (_, body, path) => {
    expect(() => classifyWebhook(body)).toThrow()
    try {
      classifyWebhook(body)
    } catch (error) {
      expect((error as { details: Array<{ path: string }> }).details[0]!.path).toBe(path)
    }
  })
})
