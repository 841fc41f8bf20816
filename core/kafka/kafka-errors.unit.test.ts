import { describe, expect, it } from 'vitest'
import { describeKafkaError } from './kafka-errors.ts'

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
