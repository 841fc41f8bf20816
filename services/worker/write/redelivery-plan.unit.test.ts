import { describe, expect, it } from 'vitest'
import type { ConversationCompleteEvent } from '../../../core/event/conversation-complete.types.ts'
import { toAvroRecord } from '../../../core/event/event-record.ts'
import { loadFixture } from '../../../test/fixtures/index.ts'
import { conversationRows } from '../transform/conversation-rows.ts'
import { type TableName, type TableRows, tableNames } from '../transform/table-rows.ts'
import { mergeRows } from './batch-rows.ts'
import {
  conversationsToInspect,
  emptyStoredKeys,
  planWrite,
  replacedIdentity,
  replacingKeys,
  type StoredKey,
  type StoredKeys,
} from './redelivery-plan.ts'

const t0 = Date.parse('2026-04-01T08:00:00Z')
const rowsOf = (event: ConversationCompleteEvent, receivedAt: number, offset = 0) =>
  conversationRows(toAvroRecord(event, { source: 'prod', receivedAt }), {
    topic: 't',
    partition: 0,
    offset,
    timestampMs: receivedAt,
  })

/** What ClickHouse would hold (FINAL) after storing these rows: their keys. */
function storedOf(rows: TableRows): StoredKeys {
  const stored = emptyStoredKeys()
  for (const table of tableNames)
    for (const row of rows[table] as unknown as Array<Record<string, string | number>>) {
      const key: Record<string, string | number> = { session_id: row.session_id! }
      for (const column of replacingKeys[table]) key[column] = row[column]!
      if (table === 'conversations') key.version = row.version!
      ;(stored[table] as StoredKey[]).push(key as StoredKey)
    }
  return stored
}

const live = (rows: TableRows, table: TableName) =>
  (rows[table] as unknown as Array<{ is_deleted: number }>).filter((row) => row.is_deleted === 0)
const buried = (rows: TableRows, table: TableName) =>
  (rows[table] as unknown as Array<Record<string, unknown>>).filter((row) => row.is_deleted === 1)

describe('planWrite', () => {
  const event = loadFixture('tool-calls')

  it('writes a conversation ClickHouse does not hold as it is, and counts it as first seen', () => {
    const rows = rowsOf(event, t0)
    const plan = planWrite(rows, emptyStoredKeys())
    for (const table of tableNames) expect(plan.rows[table], table).toEqual(rows[table])
    expect(plan.firstSeen).toEqual(new Set([event.data.session_id]))
    expect(plan).toMatchObject({ tombstones: 0, supersededDeliveries: 0, digest: '' })
  })

  it('of two deliveries in one write keeps only the newest, whatever their order', () => {
    const shorter = { ...event, data: { ...event.data, history: event.data.history!.slice(0, 3) } }
    const older = rowsOf(event, t0, 1)
    const newer = rowsOf(shorter, t0 + 60_000, 2)
    for (const rows of [
      mergeRows([{ rows: older }, { rows: newer }]),
      mergeRows([{ rows: newer }, { rows: older }]),
    ]) {
      const plan = planWrite(rows, emptyStoredKeys())
      for (const table of tableNames) expect(plan.rows[table], table).toEqual(newer[table])
      expect(plan.supersededDeliveries).toBe(1)
      expect(plan.digest).not.toBe('')
    }
  })

  it('buries every stored row the newer delivery no longer has: fewer items, other agent and time', () => {
    const stored = rowsOf(event, t0)
    const changed: ConversationCompleteEvent = {
      ...event,
      data: {
        ...event.data,
        agent_id: 'another-agent',
        start_time: '2026-05-02T10:00:00Z',
        history: event.data.history!.slice(0, 2),
      },
    }
    const rows = rowsOf(changed, t0 + 60_000)
    expect(conversationsToInspect(rows, storedOf(stored).conversations)).toEqual([event.data.session_id])
    const plan = planWrite(rows, storedOf(stored))
    // The agent version row: the new delivery's written, the old one's never buried (other
    // conversations may run that version).
    expect(plan.rows.agent_versions).toEqual(rows.agent_versions)
    expect(replacedIdentity('agent_versions', rows.agent_versions[0]!)).not.toBe(
      replacedIdentity('agent_versions', stored.agent_versions[0]!),
    )
    for (const table of tableNames.filter((name) => name !== 'agent_versions')) {
      expect(live(plan.rows, table), table).toEqual(rows[table])
      // Every key changed (agent and time are in every key), so every stored row gets its tombstone.
      const tombstones = buried(plan.rows, table)
      expect(tombstones.map((row) => replacedIdentity(table, row)).sort(), table).toEqual(
        stored[table].map((row) => replacedIdentity(table, row)).sort(),
      )
      for (const row of tombstones) expect(row.version, table).toBe(t0 + 60_000)
    }
    expect(plan.tombstones).toBeGreaterThan(stored.conversation_items.length)
    expect(plan.firstSeen.size).toBe(0)
  })

  it('buries only the items, tool calls and rollup minutes gone when the keys stay', () => {
    const stored = rowsOf(event, t0)
    const rows = rowsOf(
      { ...event, data: { ...event.data, history: event.data.history!.slice(0, 2) } },
      t0 + 1,
    )
    const plan = planWrite(rows, storedOf(stored))
    expect(buried(plan.rows, 'conversations')).toEqual([])
    // The conversation's rollup row is replaced under its own key, never buried.
    expect(buried(plan.rows, 'conversation_latency_feed')).toEqual([])
    expect(live(plan.rows, 'conversation_latency_feed')).toEqual(rows.conversation_latency_feed)
    expect(buried(plan.rows, 'conversation_items').map((row) => row.item_index)).toEqual(
      stored.conversation_items.slice(2).map((row) => row.item_index),
    )
    const keptCalls = new Set(rows.tool_calls.map((row) => row.call_index))
    expect(buried(plan.rows, 'tool_calls').map((row) => row.call_index)).toEqual(
      stored.tool_calls.map((row) => row.call_index).filter((index) => !keptCalls.has(index)),
    )
    expect(stored.tool_calls.length).toBeGreaterThan(rows.tool_calls.length)
    for (const row of buried(plan.rows, 'agent_latency_feed')) {
      expect(row.e2e_latency_unflagged).toEqual([])
      expect(row.e2e_latency_flagged).toEqual([])
    }
  })

  it('writes nothing of a delivery older than the stored one', () => {
    const stored = rowsOf(event, t0 + 60_000)
    const older = rowsOf({ ...event, data: { ...event.data, agent_id: 'old-agent' } }, t0)
    expect(conversationsToInspect(older, storedOf(stored).conversations)).toEqual([])
    const plan = planWrite(older, storedOf(stored))
    for (const table of tableNames) expect(plan.rows[table], table).toEqual([])
    expect(plan).toMatchObject({ tombstones: 0, supersededDeliveries: 1 })
    expect(plan.firstSeen.size).toBe(0)
  })

  it('a replay of the stored delivery needs no lookup and changes nothing', () => {
    const rows = rowsOf(event, t0)
    expect(conversationsToInspect(rows, storedOf(rows).conversations)).toEqual([])
    const plan = planWrite(rows, storedOf(rows))
    for (const table of tableNames) expect(plan.rows[table], table).toEqual(rows[table])
    expect(plan).toMatchObject({ tombstones: 0, supersededDeliveries: 0, digest: '' })
  })

  it('compares test results as ClickHouse replaces them: by their sorting key, which starts with the time (0009)', () => {
    const test = loadFixture('test-run')
    const stored = rowsOf(test, t0)
    const sameTime = rowsOf(test, t0 + 1)
    expect(buried(planWrite(sameTime, storedOf(stored)).rows, 'test_results')).toEqual([])
    // Another time in the same month is another row now: the stored one gets a tombstone.
    const sameMonth = rowsOf({ ...test, data: { ...test.data, start_time: '2026-04-03T00:00:00Z' } }, t0 + 1)
    const storedApril = {
      ...stored,
      test_results: stored.test_results.map((row) => ({
        ...row,
        event_time: Date.parse('2026-04-02T00:00:00Z'),
      })),
    }
    expect(buried(planWrite(sameMonth, storedOf(storedApril)).rows, 'test_results')).toHaveLength(1)
  })

  it('gives the same plan, and digest, for the same write and stored rows', () => {
    const stored = storedOf(rowsOf(event, t0))
    const rows = rowsOf({ ...event, data: { ...event.data, history: [] } }, t0 + 1)
    const plan = planWrite(rows, stored)
    expect(planWrite(rows, stored)).toEqual(plan)
    expect(plan.digest).not.toBe('')
    expect(
      planWrite(rowsOf({ ...event, data: { ...event.data, history: [] } }, t0 + 2), stored).digest,
    ).not.toBe(plan.digest)
  })
})
