import { SchemaRegistry } from '@kafkajs/confluent-schema-registry'
import avro from 'avsc'
import { describe, expect, it } from 'vitest'
import { compileAvroWriter } from '../../../core/event/avro-event-writer.ts'
import { cachedSchemaDecoder } from '../../../core/event/cached-schema-decoder.ts'
import { wireEncoder } from '../../../core/event/event-codec.ts'
import { toAvroRecord } from '../../../core/event/event-record.ts'
import { eventAvroSchema } from '../../../core/event/event-schema.ts'
import type { ConsumedMessage } from '../../../core/kafka/partition-batches.ts'
import { DependencyError } from './consume-errors.ts'
import { classifyDecodeError, decodeMessage } from './decode-message.ts'

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
  message: { value, offset: '7' } as ConsumedMessage,
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

describe('cachedSchemaDecoder', () => {
  // A real avsc reader of the event schema and the project's own wire encoder; the registry is an
  // in-memory source that counts its fetches (the real registry: poison-messages and
  // schema-registry-trouble integration tests).
  const type = avro.Type.forSchema(eventAvroSchema as never)
  const record = toAvroRecord(
    {
      event: 'ConversationComplete',
      data: { session_id: 's-1', history: [{ role: 'user', content: 'hallo' }] },
    },
    { source: 'test', receivedAt: 1_700_000_000_000 },
  )
  const bytes = wireEncoder(7, compileAvroWriter(eventAvroSchema))(record)
  const source = (...answers: Array<'ok' | Error>) => {
    const fetched: number[] = []
    return {
      fetched,
      getSchema: async (id: number) => {
        fetched.push(id)
        const answer = answers.shift() ?? 'ok'
        if (answer !== 'ok') throw answer
        return type
      },
    }
  }
  const decodeWith = (registry: ReturnType<typeof source>) => {
    const decode = cachedSchemaDecoder(registry)
    return (value: Buffer) =>
      decodeMessage({ decode, registryHoldsSubject: async () => true }, message(value))
  }

  it('decodes what the registry client decodes, asking the registry once per schema id', async () => {
    const registry = source()
    const decode = cachedSchemaDecoder(registry)
    expect(await decode(bytes)).toEqual(type.fromBuffer(bytes.subarray(5)))
    // Known id: decoded at once, no promise, no second fetch.
    const again = decode(bytes)
    expect(again).not.toBeInstanceOf(Promise)
    expect(again).toEqual(type.fromBuffer(bytes.subarray(5)))
    expect(registry.fetched).toEqual([7])
  })

  it('keeps no failed fetch: a registry that was down is asked again, and then decodes', async () => {
    const registry = source(unavailable)
    const decode = decodeWith(registry)
    await expect(decode(bytes)).rejects.toThrow(DependencyError)
    expect(await decode(bytes)).toMatchObject({ kind: 'decoded' })
    expect(registry.fetched).toEqual([7, 7])
  })

  it('an id the registry does not know (404, the registry holds the subject): poison unknown_schema', async () => {
    expect(await decodeWith(source(notFound))(bytes)).toMatchObject({
      kind: 'poison',
      reason: 'unknown_schema',
    })
  })

  it('classifies bad bytes as the registry client did: short header undecodable, magic byte not_avro, truncated undecodable', async () => {
    const decode = decodeWith(source())
    // The registry client's own decode refuses these two before it asks any registry.
    const client = new SchemaRegistry({ host: 'http://127.0.0.1:9' })
    for (const bad of [Buffer.from([0, 0, 0]), Buffer.concat([Buffer.from([1]), bytes.subarray(1)])]) {
      const theirs = await client.decode(bad).then(
        () => 'decoded',
        (error: unknown) => classifyDecodeError(error),
      )
      expect(await decode(bad)).toMatchObject({
        kind: 'poison',
        reason: (theirs as { reason: string }).reason,
      })
    }
    expect(await decode(Buffer.from([0, 0, 0]))).toMatchObject({ kind: 'poison', reason: 'undecodable' })
    expect(await decode(Buffer.concat([Buffer.from([1]), bytes.subarray(1)]))).toMatchObject({
      kind: 'poison',
      reason: 'not_avro',
    })
    expect(await decode(bytes.subarray(0, bytes.length - 3))).toMatchObject({
      kind: 'poison',
      reason: 'undecodable',
    })
    expect(await decode(Buffer.concat([bytes, Buffer.from([1])]))).toMatchObject({
      kind: 'poison',
      reason: 'undecodable',
    })
  })
})
