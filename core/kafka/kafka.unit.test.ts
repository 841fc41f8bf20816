import { randomUUID } from 'node:crypto'
import { MultipleErrors, NetworkError, ProtocolError } from '@platformatic/kafka'
import { logLevel } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../runtime/logger.ts'
import {
  createKafka,
  defaultPartitioner,
  isMessageTooLarge,
  javaCompatiblePartitioner,
  kafkaLogLevel,
} from './kafka.ts'

describe('kafkajs log lines', () => {
  it('drops the notice about the ingress bounding its idempotent producer retries on purpose', () => {
    expect(
      kafkaLogLevel(
        logLevel.WARN,
        'Limiting retries for the idempotent producer may invalidate EoS guarantees',
      ),
    ).toBeUndefined()
  })
  it('passes everything else through at its level', () => {
    expect(kafkaLogLevel(logLevel.ERROR, 'Connection error: connect ECONNREFUSED')).toBe('error')
    expect(kafkaLogLevel(logLevel.WARN, 'The group is rebalancing')).toBe('warn')
    expect(kafkaLogLevel(logLevel.INFO, 'Consumer has joined the group')).toBe('info')
  })
})

describe('createKafka producers', () => {
  it('print no notice about the default partitioner', () => {
    const lines: string[] = []
    const logger = createLogger('test', 'info', { write: (line: string) => lines.push(line) })
    const saved = process.env.KAFKAJS_NO_PARTITIONER_WARNING
    delete process.env.KAFKAJS_NO_PARTITIONER_WARNING
    try {
      createKafka({ brokers: 'localhost:1', clientId: 'test' }, logger).producer()
      createKafka({ brokers: 'localhost:1', clientId: 'test' }, logger).producer({ idempotent: true })
    } finally {
      if (saved !== undefined) process.env.KAFKAJS_NO_PARTITIONER_WARNING = saved
    }
    expect(lines.join('')).not.toMatch(/partitioner/i)
  })
})

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

describe('javaCompatiblePartitioner', () => {
  const partitions = 6
  const metadata = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    partitionErrorCode: 0,
    leader: 1,
    replicas: [1],
    isr: [1],
  }))
  const kafkajs = defaultPartitioner()
  const context = { metadata: undefined }

  it('puts a keyed message on the partition kafkajs (and the Java client) chose for it', () => {
    const partitioner = javaCompatiblePartitioner()
    for (let index = 0; index < 500; index++) {
      const key = randomUUID()
      const ours = partitioner({ topic: 't' }, Buffer.from(key), context) % partitions
      expect(ours).toBe(kafkajs({ topic: 't', partitionMetadata: metadata, message: { key, value: null } }))
    }
  })
  it('spreads unkeyed messages over every partition', () => {
    const partitioner = javaCompatiblePartitioner()
    const used = new Set<number>()
    for (let index = 0; index < partitions; index++)
      used.add(partitioner({ topic: 't' }, undefined, context) % partitions)
    expect(used.size).toBe(partitions)
  })
})
