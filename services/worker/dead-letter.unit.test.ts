import { describe, expect, it } from 'vitest'
import { deadLetterMessage, maxErrorHeaderLength } from './dead-letter.ts'

describe('deadLetterMessage', () => {
  const message = {
    key: Buffer.from('session'),
    value: Buffer.from([0, 1, 2, 255]),
    headers: { 'va-source': 'prod' },
    offset: '42',
    timestamp: '1760000000000',
    attributes: 0,
  }

  it('keeps the original bytes and headers and says where it came from and why', () => {
    const dead = deadLetterMessage(
      { message, topic: 'events', partition: 4, reason: 'undecodable', error: 'truncated buffer' },
      new Date('2026-01-02T03:04:05.006Z'),
    )
    expect(dead.key).toBe(message.key)
    expect(dead.value).toBe(message.value)
    expect(dead.headers).toEqual({
      'va-source': 'prod',
      'va-error-reason': 'undecodable',
      'va-error-message': 'truncated buffer',
      'va-original-topic': 'events',
      'va-original-partition': '4',
      'va-original-offset': '42',
      'va-original-timestamp': '1760000000000',
      'va-failed-at': '2026-01-02T03:04:05.006Z',
    })
  })

  it('cuts a long error message', () => {
    const dead = deadLetterMessage(
      { message, topic: 'events', partition: 0, reason: 'transform_error', error: 'x'.repeat(10_000) },
      new Date(),
    )
    expect(dead.headers['va-error-message']).toHaveLength(maxErrorHeaderLength)
  })
})
