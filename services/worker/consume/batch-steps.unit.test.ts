import { describe, expect, it } from 'vitest'
import { toAvroRecord } from '../../../core/event/event-record.ts'
import type { ConsumedMessage } from '../../../core/kafka/partition-batches.ts'
import { generateConversations } from '../../../generator/conversation-generator.ts'
import { loadFixture } from '../../../test/fixtures/index.ts'
import { deadLetters, outcomeCounts, received, toWrite, transformed, written } from './batch-steps.ts'
import type { Decoded, MessageOutcome, Poisoned, Transformed } from './message-outcome.ts'

// The pure parts of the batch steps: every message keeps exactly one outcome, in offset order,
// and each step moves on only the kind it is about.
const message = (offset: number): ConsumedMessage =>
  ({
    key: null,
    value: Buffer.from([offset]),
    offset: String(offset),
    timestamp: '1760000000000',
  }) as ConsumedMessage

const [good1, good2] = generateConversations({ count: 2, seed: 11, historyItems: 3 })
const decoded = (offset: number, event = good1!): Decoded => ({
  kind: 'decoded',
  ...received('events', 2, [message(offset)])[0]!,
  record: toAvroRecord(event, { source: 'prod', receivedAt: 1 }),
})
const poison = (offset: number): Poisoned => ({
  kind: 'poison',
  ...received('events', 2, [message(offset)])[0]!,
  reason: 'not_avro',
  error: 'magic byte',
})
const kinds = (outcomes: readonly MessageOutcome[]) =>
  outcomes.map((outcome) => [outcome.message.offset, outcome.kind])

describe('received', () => {
  it('names the topic and partition of every message, in order', () => {
    expect(received('events', 4, [message(7), message(8)])).toEqual([
      { topic: 'events', partition: 4, message: message(7) },
      { topic: 'events', partition: 4, message: message(8) },
    ])
  })
})

describe('rows step (transformed)', () => {
  it('makes the rows of each decoded message with its delivery, passing poison through untouched', () => {
    const bad = poison(11)
    const outcomes = transformed([decoded(10), bad, decoded(12, good2!)])
    expect(kinds(outcomes)).toEqual([
      ['10', 'transformed'],
      ['11', 'poison'],
      ['12', 'transformed'],
    ])
    expect(outcomes[1]).toBe(bad)
    const first = outcomes[0] as Transformed
    expect(first.entry.delivery).toEqual({
      topic: 'events',
      partition: 2,
      offset: 10,
      timestampMs: 1760000000000,
    })
    expect(first.entry.message).toBe(first.message)
    expect(first.entry.rows.conversations.map((row) => row.session_id)).toEqual([good1!.data.session_id])
    expect(first.entry.rows.conversation_items).toHaveLength(3)
  })

  it('makes a record the transform refuses poison (transform_error), naming the field; its neighbours go on', () => {
    const event = loadFixture('full')
    event.data.history![1]!.created_at = 'yesterday'
    const outcomes = transformed([decoded(20), decoded(21, event), decoded(22)])
    expect(kinds(outcomes)).toEqual([
      ['20', 'transformed'],
      ['21', 'poison'],
      ['22', 'transformed'],
    ])
    expect(outcomes[1]).toMatchObject({
      kind: 'poison',
      topic: 'events',
      partition: 2,
      reason: 'transform_error',
    })
    expect((outcomes[1] as Poisoned).error).toMatch(/data\.history\[1\]\.created_at/)
  })
})

describe('write step (toWrite, written)', () => {
  const outcomes = transformed([decoded(30), poison(31), decoded(32, good2!), decoded(33)])

  it('hands the writer the rows of the transformed messages only, in order', () => {
    expect(toWrite(outcomes).map((entry) => entry.delivery.offset)).toEqual([30, 32, 33])
  })

  it('makes every written message stored when ClickHouse refused none', () => {
    const after = written(outcomes, [])
    expect(kinds(after)).toEqual([
      ['30', 'stored'],
      ['31', 'poison'],
      ['32', 'stored'],
      ['33', 'stored'],
    ])
    expect(after[0]).toMatchObject({ kind: 'stored', entry: toWrite(outcomes)[0] })
  })

  it('makes the messages ClickHouse refused poison (rejected_by_clickhouse) with its error, the rest stored', () => {
    const refused = toWrite(outcomes)[1]!
    const after = written(outcomes, [{ entry: refused, error: 'Cannot parse input' }])
    expect(kinds(after)).toEqual([
      ['30', 'stored'],
      ['31', 'poison'],
      ['32', 'poison'],
      ['33', 'stored'],
    ])
    expect(after[2]).toEqual({
      kind: 'poison',
      topic: 'events',
      partition: 2,
      message: refused.message,
      reason: 'rejected_by_clickhouse',
      error: 'Cannot parse input',
    })
    expect(after[1]).toBe(outcomes[1])
  })

  it('matches a refusal to its message by identity, not by equal rows (the same message read twice)', () => {
    // A kept partition read again after a rebalance can put equal rows in one write twice.
    const twice = transformed([decoded(40), decoded(40)])
    const after = written(twice, [{ entry: toWrite(twice)[1]!, error: 'refused' }])
    expect(after.map((outcome) => outcome.kind)).toEqual(['stored', 'poison'])
  })
})

describe('dead-letter and commit steps (deadLetters, outcomeCounts)', () => {
  it('dead-letters the poison of every step, in offset order, and counts each message once', () => {
    const event = loadFixture('full')
    event.data.duration_seconds = Number.POSITIVE_INFINITY
    const rows = transformed([poison(50), decoded(51), decoded(52, event), decoded(53)])
    const after = written(rows, [{ entry: toWrite(rows)[1]!, error: 'refused' }])
    expect(deadLetters(after).map((item) => [item.message.offset, item.reason])).toEqual([
      ['50', 'not_avro'],
      ['52', 'transform_error'],
      ['53', 'rejected_by_clickhouse'],
    ])
    expect(outcomeCounts(after)).toEqual({ stored: 1, deadLettered: 3 })
  })

  it('has nothing to dead-letter in a clean batch', () => {
    const after = written(transformed([decoded(60), decoded(61)]), [])
    expect(deadLetters(after)).toEqual([])
    expect(outcomeCounts(after)).toEqual({ stored: 2, deadLettered: 0 })
  })
})
