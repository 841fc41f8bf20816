import { describe, expect, it } from 'vitest'
import { compileAvroWriter } from '../../core/event/avro-event-writer.ts'
import { wireHeaderBytes } from '../../core/event/event-codec.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { eventAvroSchema } from '../../core/event/event-schema.ts'
import { classifyWebhook as classifyWith } from './classify-webhook.ts'

const sessionId = '0b6c3d5e-8f1a-4b2c-9d3e-4f5a6b7c8d9e'
const ingest = { source: 'prod', receivedAt: 1_764_000_000_123 }
const classifyWebhook = (body: unknown) => classifyWith(body, ingest)

describe('classifyWebhook', () => {
  it('passes a fitting ConversationComplete on, as its Avro record with the ingestion metadata', () => {
    const body = { event: 'ConversationComplete', data: { session_id: sessionId, agent_name: 'Ada' } }
    const classified = classifyWebhook(body)
    expect(classified).toMatchObject({ kind: 'conversation', sessionId })
    // After room for the wire header: the bytes of the compiled writer for toAvroRecord's record.
    const expected = Buffer.alloc(4096)
    const end = compileAvroWriter(eventAvroSchema).encode(
      toAvroRecord(body, ingest),
      expected,
      wireHeaderBytes,
    )
    const avro = (classified as { avro: Buffer }).avro
    expect(avro.subarray(wireHeaderBytes)).toEqual(expected.subarray(wireHeaderBytes, end))
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
