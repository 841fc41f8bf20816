import { MultipleErrors, NetworkError, ProtocolError } from '@platformatic/kafka'
import { describe, expect, it } from 'vitest'
import { describeKafkaError, isMessageTooLarge } from './kafka-errors.ts'

describe('describeKafkaError', () => {
  it('names the innermost cause of an aggregated error beside its own message', () => {
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:19099')
    const connection = new Error('Connection to 127.0.0.1:19099 failed.', { cause: refused })
    const attempt = () => new AggregateError([connection], 'Cannot connect to any broker.')
    const error = new AggregateError(
      [new AggregateError([attempt(), attempt()], 'metadata failed 2 times.')],
      'Listing topics failed.',
    )
    expect(describeKafkaError(error)).toBe('Listing topics failed. (connect ECONNREFUSED 127.0.0.1:19099)')
  })

  it('gives a plain error or a non-error as it is', () => {
    expect(describeKafkaError(new Error('timeout'))).toBe('timeout')
    expect(describeKafkaError('gone')).toBe('gone')
    expect(describeKafkaError(new AggregateError([], 'nothing inside'))).toBe('nothing inside')
  })

  it('stops on a cause that refers back to itself', () => {
    const looping = new Error('loop') as Error & { cause?: unknown }
    looping.cause = looping
    expect(describeKafkaError(looping)).toBe('loop')
  })
})

// Kafka's size refusal must be recognised: it decides 413 (this event alone) against 503 (retry)
// in the ingress.
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
