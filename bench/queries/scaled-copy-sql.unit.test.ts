import { describe, expect, it } from 'vitest'
import { copyStatement, isTimeColumn, tablesToCopy } from './scaled-copy-sql.ts'

const columns = [
  { name: 'session_id', type: 'String', defaultKind: '' },
  { name: 'event_time', type: "DateTime64(3, 'UTC')", defaultKind: '' },
  { name: 'start_time', type: "Nullable(DateTime64(3, 'UTC'))", defaultKind: '' },
  { name: 'minute', type: "DateTime('UTC')", defaultKind: '' },
  { name: 'agent_id', type: 'LowCardinality(String)', defaultKind: '' },
  { name: 'day', type: 'Date', defaultKind: 'MATERIALIZED' },
]

describe('copy statements of the queries benchmark', () => {
  const statement = copyStatement({
    sourceDatabase: 'seed',
    targetDatabase: 'scaled',
    table: 'conversations',
    columns,
    firstCopy: 10,
    endCopy: 20,
    baseShiftSeconds: 3600,
    spreadMinutes: 43_200,
  })

  it('gives every copy a new session id and shifts every DateTime and DateTime64 column by one offset', () => {
    expect(statement).toContain(
      'INSERT INTO scaled.conversations (session_id, event_time, start_time, minute, agent_id)',
    )
    expect(statement).toContain(
      "toString(reinterpretAsUUID(MD5(concat(session_id, '#', toString(copy))))) AS session_id",
    )
    const shift = '(3600 + 60 * toInt64(cityHash64(session_id, copy) % 43200))'
    for (const column of ['event_time', 'start_time', 'minute'])
      expect(statement).toContain(`${column} + toIntervalSecond(${shift}) AS ${column}`)
    expect(statement).toMatch(/, agent_id\nFROM seed\.conversations\nARRAY JOIN range\(10, 20\) AS copy$/)
  })

  it('leaves out columns the table computes itself', () => {
    expect(statement).not.toContain('day')
  })

  it('refuses what it cannot copy faithfully', () => {
    expect(() => isTimeColumn("Array(DateTime64(3, 'UTC'))")).toThrow(/cannot shift/)
    expect(isTimeColumn('LowCardinality(Nullable(DateTime))')).toBe(true)
    expect(isTimeColumn('Date')).toBe(false)
    const base = { sourceDatabase: 's', targetDatabase: 't', table: 'x', firstCopy: 0, endCopy: 1 }
    expect(() =>
      copyStatement({ ...base, columns: columns.slice(1), baseShiftSeconds: 0, spreadMinutes: 1 }),
    ).toThrow(/no session_id/)
    expect(() =>
      copyStatement({ ...base, columns, endCopy: 0, baseShiftSeconds: 0, spreadMinutes: 1 }),
    ).toThrow(/no copies/)
    expect(() =>
      copyStatement({ ...base, table: 'x; DROP', columns, baseShiftSeconds: 0, spreadMinutes: 1 }),
    ).toThrow(/identifier/)
  })

  it('copies MergeTree conversation tables, not Null tables, views, or what a view fills from a copied table', () => {
    const tables = [
      { name: 'conversations', engine: 'ReplacingMergeTree' },
      { name: 'conversation_items', engine: 'ReplacingMergeTree' },
      { name: 'schema_migrations', engine: 'ReplacingMergeTree' },
      { name: 'agent_latency_feed', engine: 'Null' },
      { name: 'agent_latency_minute', engine: 'ReplacingMergeTree' },
      {
        name: 'agent_latency_minute_mv',
        engine: 'MaterializedView',
        viewTarget: 'agent_latency_minute',
        viewSources: ['agent_latency_feed'],
      },
      { name: 'item_rollup', engine: 'AggregatingMergeTree' },
      {
        name: 'item_rollup_mv',
        engine: 'MaterializedView',
        viewTarget: 'item_rollup',
        viewSources: ['conversation_items'],
      },
      { name: 'campaigns', engine: 'View' },
    ]
    const withSessions = new Set([
      'conversations',
      'conversation_items',
      'agent_latency_feed',
      'agent_latency_minute',
      'item_rollup',
      'campaigns',
    ])
    expect(tablesToCopy(tables, (table) => withSessions.has(table))).toEqual([
      'agent_latency_minute',
      'conversation_items',
      'conversations',
    ])
  })

  it('leaves the hour rollup to the recompute and the reference tables to one plain copy', () => {
    const tables = [
      { name: 'conversations', engine: 'ReplacingMergeTree' },
      { name: 'agent_latency_hour', engine: 'ReplacingMergeTree' },
      { name: 'prices', engine: 'ReplacingMergeTree' },
      { name: 'erasures', engine: 'ReplacingMergeTree' },
      { name: 'forgotten_sessions', engine: 'ReplacingMergeTree' },
      // what each configuration fingerprint stands for: the copies keep their fingerprints
      { name: 'agent_versions', engine: 'ReplacingMergeTree' },
    ]
    expect(tablesToCopy(tables, (table) => table === 'conversations')).toEqual(['conversations'])
  })

  it('refuses a table it could not copy per conversation, rather than leave it empty', () => {
    const tables = [
      { name: 'conversations', engine: 'ReplacingMergeTree' },
      { name: 'agent_day_totals', engine: 'SummingMergeTree' },
    ]
    expect(() => tablesToCopy(tables, (table) => table === 'conversations')).toThrow(/agent_day_totals/)
  })
})
