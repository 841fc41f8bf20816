import { MultipleErrors, ProtocolError } from '@platformatic/kafka'
import { describe, expect, it } from 'vitest'
import type { ConsumedMessage } from '../../../core/kafka/partition-batches.ts'
import type { DeadLetterRecord, Poison } from './dead-letter.ts'
import { isTooLarge, type OversizedOutcome, publishDeadLetters } from './dead-letter-publish.ts'

// The order of sends when the DLQ refuses records for their size, with a topic that takes records
// up to `limit` bytes of value (a stand-in for the send only; the Kafka behaviour itself is in
// test/worker/dead-letter-oversized.integration.test.ts).
const tooLarge = Object.assign(new Error('too large'), {
  cause: Object.assign(new Error('The request included a message larger than the max message size'), {
    type: 'MESSAGE_TOO_LARGE',
  }),
})

function poisonOf(offset: number, valueBytes: number): Poison {
  return {
    message: {
      key: null,
      value: Buffer.alloc(valueBytes, 1),
      offset: String(offset),
      timestamp: '0',
    } as ConsumedMessage,
    topic: 't',
    partition: 0,
    reason: 'not_avro',
    error: 'bad',
  }
}

function topicTaking(limit: number, refusedForms: readonly string[] = []) {
  const sends: DeadLetterRecord[][] = []
  const oversized: Array<[string, OversizedOutcome]> = []
  const deps = {
    send: async (records: DeadLetterRecord[]) => {
      sends.push(records)
      const total = records.reduce((sum, record) => sum + (record.value?.length ?? 0), 0)
      const forms = records.map((record) => String(record.headers['va-dead-letter-reduced']))
      if (total > limit || forms.some((form) => refusedForms.includes(form))) throw tooLarge
    },
    retry: async (operation: () => Promise<void>) => operation(),
    maxMessageBytes: async () => limit,
    onOversized: (poison: Poison, outcome: OversizedOutcome) =>
      oversized.push([poison.message.offset, outcome]),
  }
  return { deps, sends, oversized }
}

describe('publishDeadLetters', () => {
  it('sends everything in one send when the topic takes it', async () => {
    const { deps, sends, oversized } = topicTaking(10_000)
    await publishDeadLetters([poisonOf(1, 100), poisonOf(2, 100)], new Date(), deps)
    expect(sends.map((records) => records.length)).toEqual([2])
    expect(oversized).toEqual([])
  })

  it('refused together: one by one, and only the one too large alone goes truncated', async () => {
    const { deps, sends, oversized } = topicTaking(3000)
    await publishDeadLetters([poisonOf(1, 2000), poisonOf(2, 20_000), poisonOf(3, 2000)], new Date(), deps)
    expect(sends.map((records) => records.map((record) => record.headers['va-original-offset']))).toEqual([
      ['1', '2', '3'],
      ['1'],
      ['2'],
      ['2'],
      ['3'],
    ])
    expect(sends[3]![0]!.headers['va-dead-letter-reduced']).toBe('truncated')
    expect(oversized).toEqual([['2', 'truncated']])
  })

  it('truncated still refused: a reference; that refused too: counted as none, and the partition moves on', async () => {
    const reference = topicTaking(1000, ['truncated'])
    await publishDeadLetters([poisonOf(5, 20_000)], new Date(), reference.deps)
    expect(reference.oversized).toEqual([['5', 'reference']])
    const none = topicTaking(1000, ['truncated', 'reference'])
    await publishDeadLetters([poisonOf(6, 20_000)], new Date(), none.deps)
    expect(none.oversized).toEqual([['6', 'none']])
  })

  it('any other failure goes to the caller (it retries; nothing is skipped)', async () => {
    const { deps } = topicTaking(10_000)
    deps.send = async () => {
      throw new Error('broker unavailable')
    }
    await expect(publishDeadLetters([poisonOf(1, 10)], new Date(), deps)).rejects.toThrow(
      'broker unavailable',
    )
  })
})

describe('isTooLarge', () => {
  it("finds the protocol error @platformatic/kafka aggregates (the worker's producer)", () => {
    const refused = new MultipleErrors('Producing messages failed.', [new ProtocolError('MESSAGE_TOO_LARGE')])
    expect(isTooLarge(refused)).toBe(true)
    const other = new MultipleErrors('Producing messages failed.', [
      new ProtocolError('NOT_LEADER_OR_FOLLOWER'),
    ])
    expect(isTooLarge(other)).toBe(false)
  })

  it('finds the protocol error behind KafkaJS wrappers', () => {
    expect(isTooLarge(tooLarge)).toBe(true)
    expect(isTooLarge({ errors: [{ type: 'RECORD_LIST_TOO_LARGE' }] })).toBe(true)
    expect(isTooLarge(new Error('MESSAGE_TOO_LARGE mentioned only in text'))).toBe(false)
    expect(isTooLarge({ type: 'NOT_LEADER_FOR_PARTITION' })).toBe(false)
  })
})
