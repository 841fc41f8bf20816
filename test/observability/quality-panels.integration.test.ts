import { describe, expect, it } from 'vitest'
import { expandPanelSql, type MacroContext, type Selection } from '../../dashboards/src/grafana-macros.ts'
import { sql } from '../../dashboards/src/panel-sql.ts'
import { qualityPerAgent, qualityTestVsProduction } from '../../dashboards/src/quality-panel-sql.ts'
import type { ConversationRow } from '../../services/worker/transform/table-rows.ts'
import { generatedClickHouse } from './generated-clickhouse.ts'

// The conversation-quality panels (and the overview page's table, the same SQL) answer what the
// turn-taking columns of the conversations the worker's transform made say, computed here in
// JavaScript from those rows: per agent, and test against production traffic, over conversations
// written by the worker's insert (some delivered twice, some with flagged speech).
const fixture = generatedClickHouse('quality-panels', {
  count: 800,
  hours: 6,
  redelivered: 40,
  seed: 47,
  flaggedEvery: 9,
})

const all: Record<string, Selection> = {
  source: '$__all',
  agent: '$__all',
  campaign: '$__all',
  telecom_provider: '$__all',
}

async function panelRows(rawSql: string): Promise<Record<string, unknown>[]> {
  const { now, from } = fixture.generated
  const context: MacroContext = {
    from: new Date(from.getTime() - 3600_000),
    to: new Date(now.getTime() + 3600_000),
    intervalSeconds: 600,
    variables: all,
  }
  const result = await fixture.client.query({
    query: expandPanelSql(sql(rawSql), context, {}),
    format: 'JSON',
  })
  return ((await result.json()) as { data: Record<string, unknown>[] }).data
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)
/** ClickHouse's quantileExact: the element at floor(level × n) of the sorted values. */
const quantileExact = (level: number, values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(Math.floor(level * sorted.length), sorted.length - 1)]!
}

function reference(rows: ConversationRow[]) {
  const speech = rows.filter((row) => row.agent_talk_ms !== null)
  const agentTurns = sum(speech.map((row) => row.agent_turn_count))
  const bargeIns = sum(speech.map((row) => row.caller_barge_ins!))
  return {
    calls: speech.length,
    talk_ratio: sum(speech.map((row) => row.talk_ratio!)) / speech.length,
    dead_air_share: speech.filter((row) => row.dead_air_count! > 0).length / speech.length,
    longest_silence_p95_s:
      quantileExact(
        0.95,
        speech.map((row) => row.longest_silence_ms!),
      ) / 1000,
    barge_ins_per_agent_turn: bargeIns / agentTurns,
    barge_ins_yielded_share: sum(speech.map((row) => row.barge_ins_yielded!)) / bargeIns,
    cut_ins_per_agent_turn: sum(speech.map((row) => row.agent_cut_ins!)) / agentTurns,
    response_gap_median_ms: quantileExact(
      0.5,
      rows.flatMap((row) => (row.response_gap_p50_ms === null ? [] : [row.response_gap_p50_ms])),
    ),
  }
}

/** The panel's row against the reference, each figure within the panel's rounding. */
function expectMatches(row: Record<string, unknown>, expected: ReturnType<typeof reference>, where: string) {
  expect(Number(row.calls), where).toBe(expected.calls)
  for (const [column, value] of Object.entries(expected)) {
    if (column === 'calls') continue
    const decimals = column.endsWith('_ms') ? 0 : column.endsWith('_s') ? 1 : 3
    expect(Number(row[column]), `${where}: ${column}`).toBeCloseTo(value, decimals - 1)
  }
}

describe('the conversation quality panels', () => {
  it('per agent: what the conversations’ own turn-taking columns say', async () => {
    const rows = fixture.generated.conversationRows
    const byAgent = Map.groupBy(rows, (row) => row.agent_name ?? row.agent_id)
    const answered = await panelRows(qualityPerAgent)
    expect(answered.length).toBe(byAgent.size)
    expect(answered.length).toBeGreaterThan(1)
    for (const row of answered)
      expectMatches(row, reference(byAgent.get(String(row.agent))!), String(row.agent))
    // The generated calls have speech, silences and barge-ins to count.
    expect(answered.some((row) => Number(row.barge_ins_per_agent_turn) > 0)).toBe(true)
    expect(answered.some((row) => Number(row.dead_air_share) > 0)).toBe(true)
  })

  it('test against production traffic', async () => {
    const rows = fixture.generated.conversationRows
    const isTest = (row: ConversationRow) => row.test_run_id !== null || row.test_id !== null
    const answered = await panelRows(qualityTestVsProduction)
    expect(answered.map((row) => row.traffic).sort()).toEqual(['production', 'test'])
    for (const row of answered)
      expectMatches(
        row,
        reference(rows.filter((r) => isTest(r) === (row.traffic === 'test'))),
        String(row.traffic),
      )
  })
})
