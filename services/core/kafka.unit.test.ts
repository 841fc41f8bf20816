import { logLevel } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { createKafka, kafkaLogLevel } from './kafka.ts'
import { createLogger } from './logger.ts'

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
