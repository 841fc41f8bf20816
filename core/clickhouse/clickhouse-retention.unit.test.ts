import { describe, expect, it } from 'vitest'
import { retentionStatements, ttlDays } from './clickhouse-retention.ts'

const withTtl = (days: number) =>
  `ReplacingMergeTree(ingested_at) ORDER BY session_id TTL toDateTime(event_time) + toIntervalDay(${days}) SETTINGS index_granularity = 8192`
const noTtl = 'ReplacingMergeTree(ingested_at) ORDER BY session_id SETTINGS index_granularity = 8192'
const tables = [
  { name: 'conversations', engine_full: withTtl(30) },
  { name: 'conversation_items', engine_full: noTtl },
  { name: 'agent_latency_minute', engine_full: withTtl(400) },
  { name: 'schema_migrations', engine_full: noTtl },
]

describe('retentionStatements', () => {
  it('changes nothing when no retention is asked for (an unset setting keeps a TTL someone set)', () => {
    expect(retentionStatements('va', tables, {})).toEqual([])
    expect(retentionStatements('va', tables, { conversationDays: undefined, rollupDays: undefined })).toEqual(
      [],
    )
  })

  it('sets the asked days only on the tables that differ, and leaves the rollup alone when not asked', () => {
    expect(retentionStatements('va', tables, { conversationDays: 30 })).toEqual([
      'ALTER TABLE va.conversation_items MODIFY TTL toDateTime(event_time) + INTERVAL 30 DAY',
    ])
  })

  it('0 removes a TTL (keep everything), only where there is one', () => {
    expect(retentionStatements('va', tables, { conversationDays: 0, rollupDays: 0 })).toEqual([
      'ALTER TABLE va.conversations REMOVE TTL',
      'ALTER TABLE va.agent_latency_minute REMOVE TTL',
    ])
  })

  it('the rollup on its own column', () => {
    expect(retentionStatements('va', tables, { rollupDays: 90 })).toEqual([
      'ALTER TABLE va.agent_latency_minute MODIFY TTL toDateTime(minute) + INTERVAL 90 DAY',
    ])
  })
})

describe('ttlDays', () => {
  it('reads the days of a TTL, undefined without one', () => {
    expect(ttlDays(withTtl(7))).toBe(7)
    expect(ttlDays(noTtl)).toBeUndefined()
  })
})
