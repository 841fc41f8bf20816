import { Session } from 'chdb'
import { afterAll, describe, expect, it } from 'vitest'
import {
  agentHours,
  dirtyHoursStatement,
  insertVisibilityMarginSeconds,
  recomputeParams,
  recomputeStatement,
} from './latency-hour-rollup.ts'

describe('the agent-hours a write touched', () => {
  it('takes each agent and hour once, whatever the minute, sorted', () => {
    const hour = 1_795_640_400
    expect(
      agentHours([
        { agent_id: 'b', minute: hour + 3600 },
        { agent_id: 'a', minute: hour + 59 * 60 },
        { agent_id: 'a', minute: hour },
        { agent_id: 'b', minute: hour + 3600 + 120 },
        { agent_id: 'a', minute: hour - 60 },
      ]),
    ).toEqual([
      { agent_id: 'a', hour: hour - 3600 },
      { agent_id: 'a', hour },
      { agent_id: 'b', hour: hour + 3600 },
    ])
  })

  it('hands ClickHouse the pairs and the span that narrows the read', () => {
    expect(
      recomputeParams([
        { agent_id: 'a', hour: 7200 },
        { agent_id: 'b', hour: 3600 },
        { agent_id: 'a', hour: 10_800 },
      ]),
    ).toEqual({
      agents: ['a', 'b'],
      first: 3600,
      last: 10_800,
      agentOfHour: ['a', 'b', 'a'],
      hours: [7200, 3600, 10_800],
    })
  })
})

describe('the statements', () => {
  const session = new Session()
  afterAll(() => session.close())

  it('parses, for the touched hours (with the parameters set) and for every hour', () => {
    const params = recomputeParams([{ agent_id: 'a', hour: 3600 }])
    const literal = (value: unknown) =>
      Array.isArray(value) ? JSON.stringify(value).replaceAll('"', "'") : String(value)
    for (const scope of ['touched', 'every hour'] as const) {
      const statement = recomputeStatement('voice_analytics', scope)
      const bound = statement.replace(/\{(\w+):[^}]+\}/g, (_, name: string) => literal(params[name]))
      expect(session.query(`EXPLAIN AST ${bound}`, 'TSVRaw')).toMatch(/InsertQuery/)
      // Tombstones first (version V), the groups found now one version higher.
      expect(statement).toMatch(
        /FROM voice_analytics\.agent_latency_hour FINAL[\s\S]*UNION ALL[\s\S]*\+ 1, 0/,
      )
    }
  })

  it('the dirty-hours statement parses, and reads only rows stamped since the bound, against the hours last recompute less the margin', () => {
    const statement = dirtyHoursStatement('voice_analytics')
    expect(session.query(`EXPLAIN AST ${statement.replace('{sinceMs:Int64}', '0')}`, 'TSVRaw')).toMatch(
      /SelectQuery/,
    )
    expect(statement).toMatch(/WHERE inserted_at >= fromUnixTimestamp64Milli\(\{sinceMs:Int64\}/)
    expect(statement).toContain(`+ ${insertVisibilityMarginSeconds * 1e9} > rolled.recomputed`)
  })
})
