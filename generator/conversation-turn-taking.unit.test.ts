import { describe, expect, it } from 'vitest'
import { toAvroRecord } from '../core/event/event-record.ts'
import { grafanaAlertThresholds as alertThresholds } from '../dashboards/src/grafana-alert-rules.ts'
import { conversationRows } from '../services/worker/transform/conversation-rows.ts'
import { generateConversations } from './conversation-generator.ts'

// The generated calls go wrong between turns the way real ones do, often enough to show on the
// quality dashboard and rarely enough that the shipped quality alerts stay quiet on them.
const delivery = { topic: 't', partition: 0, offset: 0, timestampMs: 0 }
const calls = generateConversations({ count: 400, seed: 31 })
  .map(
    (event) =>
      conversationRows(toAvroRecord(event, { source: 'prod', receivedAt: 1 }), delivery).conversations[0]!,
  )
  .filter((call) => call.response_turns !== null && call.response_turns > 0)
const total = (
  column:
    | 'dead_air_count'
    | 'caller_barge_ins'
    | 'agent_cut_ins'
    | 'response_turns'
    | 'gap_e2e_disagreements'
    | 'speech_left_out',
) => calls.reduce((sum, call) => sum + (call[column] ?? 0), 0)

describe('the turn-taking of generated conversations', () => {
  it('has calls with speech, none of it flagged', () => {
    expect(calls.length).toBeGreaterThan(300)
    expect(total('speech_left_out')).toBe(0)
  })

  it('has dead air on some calls, below the dead-air alert', () => {
    const share = calls.filter((call) => (call.dead_air_count ?? 0) > 0).length / calls.length
    expect(share).toBeGreaterThan(0.05)
    expect(share).toBeLessThan(alertThresholds.deadAirShareAbove)
  })

  it('has barge-ins and agent cut-ins, below the barge-in alert', () => {
    const perTurn = total('caller_barge_ins') / total('response_turns')
    expect(perTurn).toBeGreaterThan(0.02)
    expect(perTurn).toBeLessThan(alertThresholds.bargeInsPerAgentTurnAbove)
    expect(total('agent_cut_ins')).toBeGreaterThan(0.01 * total('response_turns'))
  })

  it('has response gaps that disagree with e2e_latency where the agent cut in, and only there', () => {
    expect(total('gap_e2e_disagreements')).toBeGreaterThan(0)
    for (const call of calls)
      expect(call.gap_e2e_disagreements ?? 0).toBeLessThanOrEqual(call.agent_cut_ins ?? 0)
  })
})
