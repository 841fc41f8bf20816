import { describe, expect, it } from 'vitest'
import { pairToolCalls } from './tool-call-pairing.ts'

describe('pairToolCalls', () => {
  it('pairs parallel calls with their outputs by tool_call_id, whatever the order of the outputs', () => {
    const pairs = pairToolCalls([
      { kind: 'Message', role: 'User' },
      { kind: 'FunctionCall', tool_name: 'a', tool_call_id: 'c1' },
      { kind: 'FunctionCall', tool_name: 'b', tool_call_id: 'c2' },
      { kind: 'FunctionCallOutput', tool_call_id: 'c2', tool_output: 'B' },
      { kind: 'FunctionCallOutput', tool_call_id: 'c1', tool_output: 'A', tool_is_error: true },
    ])
    expect(pairs.map((pair) => [pair.callIndex, pair.call?.index, pair.output?.index])).toEqual([
      [1, 1, 4],
      [2, 2, 3],
    ])
  })

  it('keeps a call without output and an output without call as rows of their own', () => {
    const pairs = pairToolCalls([
      { kind: 'FunctionCall', tool_name: 'a', tool_call_id: 'c1' },
      { kind: 'FunctionCallOutput', tool_call_id: 'other', tool_output: 'x' },
      { tool_output: 'no id', tool_is_error: false },
    ])
    expect(
      pairs.map((pair) => [pair.callIndex, pair.call?.index ?? null, pair.output?.index ?? null]),
    ).toEqual([
      [0, 0, null],
      [1, null, 1],
      [2, null, 2],
    ])
  })

  it('answers a reused call id in order, and ignores items that are neither', () => {
    const pairs = pairToolCalls([
      { kind: 'FunctionCall', tool_call_id: 'same' },
      { kind: 'FunctionCallOutput', tool_call_id: 'same', tool_output: '1' },
      { kind: 'AgentHandoff', handoff_to_agent_id: 'x' },
      { kind: 'FunctionCall', tool_call_id: 'same' },
      { kind: 'FunctionCallOutput', tool_call_id: 'same', tool_output: '2' },
    ])
    expect(pairs.map((pair) => [pair.call?.index, pair.output?.item.tool_output])).toEqual([
      [0, '1'],
      [3, '2'],
    ])
  })
})
