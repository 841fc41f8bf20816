import { describe, expect, it } from 'vitest'
import type { KafkaMessage } from '../core/kafka.ts'
import { classifyDecodeError, DependencyError, decodeMessage } from './decode-message.ts'

// The decision "poison or wait for the registry", on the errors the registry client throws.
const notFound = Object.assign(new Error('Schema Registry - Schema not found'), {
  name: 'ResponseError',
  status: 404,
})
const unavailable = Object.assign(new Error('Schema Registry - Error, status 503'), {
  name: 'ResponseError',
  status: 503,
})
const message = (value: Buffer | null) => ({
  topic: 't',
  partition: 3,
  message: { value, offset: '7' } as KafkaMessage,
})
const failingWith = (error: unknown) => async () => {
  throw error
}

describe('classifyDecodeError', () => {
  it.each([
    [
      'no Confluent wire format',
      Object.assign(new Error('magic byte'), { name: 'ConfluentSchemaRegistryArgumentError' }),
      'not_avro',
    ],
    ['404 for the id', notFound, 'schema_not_found'],
    ['registry 503', unavailable, 'dependency'],
    ['registry 401', Object.assign(new Error('unauthorized'), { status: 401 }), 'dependency'],
    ['connection refused', new Error('connect ECONNREFUSED 127.0.0.1:8081'), 'dependency'],
    ['bytes the schema does not read', new Error('truncated buffer'), 'undecodable'],
  ])('%s', (_name, error, expected) => {
    const result = classifyDecodeError(error)
    expect(typeof result === 'string' ? result : result.reason).toBe(expected)
  })
})

describe('decodeMessage', () => {
  const holds = async () => true
  const empty = async () => false

  it('a 404 from a registry that holds the subject: the id is unknown, poison', async () => {
    const result = await decodeMessage(
      { decode: failingWith(notFound), registryHoldsSubject: holds },
      message(Buffer.from([0, 0, 0, 0, 9])),
    )
    expect(result).toMatchObject({ kind: 'poison', reason: 'unknown_schema', topic: 't', partition: 3 })
  })

  it('a 404 from a registry without the subject (wrong path, gateway, empty): wait, not poison', async () => {
    await expect(
      decodeMessage(
        { decode: failingWith(notFound), registryHoldsSubject: empty },
        message(Buffer.from([0, 1])),
      ),
    ).rejects.toThrow(DependencyError)
    await expect(
      decodeMessage(
        { decode: failingWith(notFound), registryHoldsSubject: failingWith(unavailable) },
        message(Buffer.from([0, 1])),
      ),
    ).rejects.toThrow(DependencyError)
  })

  it('a registry that is down: wait', async () => {
    await expect(
      decodeMessage(
        { decode: failingWith(unavailable), registryHoldsSubject: holds },
        message(Buffer.from([0])),
      ),
    ).rejects.toThrow(DependencyError)
  })

  it('no value, or bytes the returned schema cannot read: poison', async () => {
    expect(
      await decodeMessage({ decode: failingWith(notFound), registryHoldsSubject: holds }, message(null)),
    ).toMatchObject({
      kind: 'poison',
      reason: 'empty_value',
    })
    expect(
      await decodeMessage(
        { decode: failingWith(new Error('truncated buffer')), registryHoldsSubject: empty },
        message(Buffer.from([0, 0, 0, 0, 1, 2])),
      ),
    ).toMatchObject({ kind: 'poison', reason: 'undecodable', error: 'truncated buffer' })
  })

  it('a record that decodes', async () => {
    const record = { session_id: 's' }
    const received = message(Buffer.from([0]))
    expect(
      await decodeMessage({ decode: async () => record as never, registryHoldsSubject: empty }, received),
    ).toEqual({ kind: 'decoded', ...received, record })
  })
})
