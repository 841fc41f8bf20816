import { describe, expect, it } from 'vitest'
import { type CallValues, callFigures } from './call-figures.ts'

const call = (values: Partial<CallValues>): CallValues => ({
  e2eP50: null,
  e2eP95: null,
  ttftP50: null,
  ttfbP50: null,
  failed: false,
  testSuccess: null,
  deadAirCount: null,
  callerBargeIns: null,
  agentTurns: 0,
  cost: null,
  ...values,
})

describe('callFigures', () => {
  it('counts each figure over the calls that have its value', () => {
    const figures = callFigures([
      call({
        e2eP50: 0.8,
        e2eP95: 1.5,
        failed: true,
        testSuccess: true,
        deadAirCount: 0,
        callerBargeIns: 1,
        agentTurns: 10,
        cost: 0.2,
      }),
      call({
        e2eP50: 1.0,
        e2eP95: 2.5,
        testSuccess: false,
        deadAirCount: 2,
        callerBargeIns: 3,
        agentTurns: 10,
      }),
      call({ e2eP50: 1.2, e2eP95: 1.9, testSuccess: true, cost: 0.4 }),
      call({}),
    ])
    expect(figures.e2e_latency_p50_s).toMatchObject({ value: 1.0, n: 3 })
    expect(figures.e2e_latency_p95_s).toMatchObject({ value: 1.9, n: 3 })
    expect(figures.llm_ttft_p50_s).toMatchObject({ value: null, n: 0 })
    expect(figures.failed_room_rate).toMatchObject({ value: 0.25, n: 4 })
    expect(figures.test_pass_rate.value).toBeCloseTo(2 / 3, 12)
    expect(figures.test_pass_rate.n).toBe(3)
    expect(figures.cost_per_call.value).toBeCloseTo(0.3, 12)
    expect(figures.cost_per_call.n).toBe(2)
    expect(figures.dead_air_call_rate).toMatchObject({ value: 0.5, n: 2 })
    expect(figures.barge_ins_per_agent_turn).toMatchObject({ value: 0.2, n: 2 })
  })
})
