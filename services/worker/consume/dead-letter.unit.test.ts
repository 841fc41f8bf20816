import { describe, expect, it } from 'vitest'
import { deadLetterMessage, maxErrorHeaderLength, reducedDeadLetter } from './dead-letter.ts'

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

describe('reducedDeadLetter', () => {
  const big = {
    key: Buffer.from('session-1'),
    value: Buffer.alloc(50_000, 7),
    headers: { 'x-trace': 'abc' },
    offset: '9',
    timestamp: '1760000000000',
    attributes: 0,
  }
  const poison = { message: big, topic: 'events', partition: 2, reason: 'not_avro' as const, error: 'bad' }
  const sizeOf = (record: { key: Buffer | null; value: Buffer | null; headers: Record<string, unknown> }) =>
    (record.key?.length ?? 0) +
    (record.value?.length ?? 0) +
    Object.entries(record.headers).reduce((sum, [name, value]) => sum + name.length + String(value).length, 0)

  it('truncated: the value cut to fit the limit, original headers kept, the original size and hash named', () => {
    const record = reducedDeadLetter(poison, new Date(0), 4096, 'truncated')
    expect(sizeOf(record)).toBeLessThan(4096)
    expect(record.value!.length).toBeGreaterThan(2000)
    expect(Buffer.compare(record.value!, big.value.subarray(0, record.value!.length))).toBe(0)
    expect(record.headers).toMatchObject({
      'x-trace': 'abc',
      'va-dead-letter-reduced': 'truncated',
      'va-original-value-bytes': '50000',
      'va-original-topic': 'events',
      'va-original-partition': '2',
      'va-original-offset': '9',
      'va-error-reason': 'not_avro',
    })
    expect(record.headers['va-original-value-sha256']).toMatch(/^[0-9a-f]{64}$/)
  })

  it('truncated below the framing: an empty value, never a negative cut', () => {
    expect(reducedDeadLetter(poison, new Date(0), 100, 'truncated').value).toHaveLength(0)
  })

  it('reference: no value, no original headers, only the error and where the original is', () => {
    const record = reducedDeadLetter(
      { ...poison, message: { ...big, headers: { 'x-huge': 'h'.repeat(100_000) } } },
      new Date(0),
      4096,
      'reference',
    )
    expect(record.value).toBeNull()
    expect(record.key?.toString()).toBe('session-1')
    expect(record.headers['x-huge']).toBeUndefined()
    expect(record.headers).toMatchObject({
      'va-dead-letter-reduced': 'reference',
      'va-original-offset': '9',
      'va-original-value-bytes': '50000',
    })
    expect(sizeOf(record)).toBeLessThan(1024)
  })
})
