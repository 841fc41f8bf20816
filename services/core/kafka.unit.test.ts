import { MultipleErrors, NetworkError, ProtocolError } from '@platformatic/kafka'
import { describe, expect, it } from 'vitest'
import { isMessageTooLarge } from './kafka.ts'

// Kafka's size refusal must be recognised from both clients: it decides 413 (this event alone)
// against 503 (retry) in the ingress.
describe('isMessageTooLarge', () => {
  it('recognises kafkajs errors by type', () => {
    expect(isMessageTooLarge({ type: 'MESSAGE_TOO_LARGE' })).toBe(true)
    expect(isMessageTooLarge({ type: 'RECORD_LIST_TOO_LARGE' })).toBe(true)
    expect(isMessageTooLarge({ type: 'REQUEST_TIMED_OUT' })).toBe(false)
  })
  it('recognises @platformatic/kafka errors, also inside aggregated errors', () => {
    expect(isMessageTooLarge(new ProtocolError('MESSAGE_TOO_LARGE'))).toBe(true)
    expect(
      isMessageTooLarge(new MultipleErrors('produce failed', [new ProtocolError('RECORD_LIST_TOO_LARGE')])),
    ).toBe(true)
    expect(isMessageTooLarge(new MultipleErrors('produce failed', [new NetworkError('down')]))).toBe(false)
    expect(isMessageTooLarge(new ProtocolError('NOT_LEADER_OR_FOLLOWER'))).toBe(false)
  })
  it('is false for anything else', () => {
    expect(isMessageTooLarge(undefined)).toBe(false)
    expect(isMessageTooLarge(new Error('MESSAGE_TOO_LARGE'))).toBe(false)
  })
})
