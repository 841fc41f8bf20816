import { describe, expect, it } from 'vitest'
import { agentVersionAt, type VersionChange } from './agent-versions.ts'
import { generateConversations } from './conversation-generator.ts'

const from = Date.parse('2026-03-02T00:00:00Z')
const hour = 3600_000
const change: VersionChange = {
  agentIndex: 0,
  at: from + 12 * hour,
  instruction: 'Always offer the caller a callback.',
  addedSeconds: 0.3,
}
const generated = (changes: VersionChange[]) =>
  generateConversations({ count: 600, seed: 5, from, spanHours: 24, agents: 2, versionChanges: changes })

const systemPrompt = (event: ReturnType<typeof generated>[number]) =>
  event.data.history?.find((item) => item.role === 'System')?.content ?? ''
const e2e = (events: ReturnType<typeof generated>) =>
  events
    .flatMap((event) => event.data.history ?? [])
    .flatMap((item) => (typeof item.metrics?.e2e_latency === 'number' ? [item.metrics.e2e_latency] : []))
    .sort((a, b) => a - b)
const p95 = (values: number[]) => values[Math.floor(values.length * 0.95)]!

describe('version changes of generated agents', () => {
  it('give the changed agent the new instructions from the change on, and no other agent', () => {
    const events = generated([change]).filter((event) => systemPrompt(event).length > 0)
    const changedAgents = new Set(
      events
        .filter((event) => systemPrompt(event).includes(change.instruction))
        .map((event) => event.data.agent_id),
    )
    expect(changedAgents.size).toBe(1)
    const [changed] = changedAgents
    for (const event of events)
      expect(systemPrompt(event).includes(change.instruction), event.data.session_id).toBe(
        event.data.agent_id === changed && Date.parse(event.data.start_time!) >= change.at,
      )
    expect(new Set(events.map((event) => event.data.agent_id)).size).toBe(2)
  })

  it('add their effect to the p95 end-to-end latency of the changed agent after the change', () => {
    const worse = generated([change])
    const steady = generated([])
    const changed = worse.find((event) => systemPrompt(event).includes(change.instruction))!.data.agent_id
    const only = (events: ReturnType<typeof generated>) =>
      events.filter(
        (event) => event.data.agent_id === changed && Date.parse(event.data.start_time!) >= change.at,
      )
    // same seed, same calls: only the added seconds differ, so the p95 moves by them
    expect(p95(e2e(only(worse))) - p95(e2e(only(steady)))).toBeCloseTo(change.addedSeconds, 1)
    const none = generated([{ ...change, addedSeconds: 0 }])
    expect(p95(e2e(only(none)))).toBeCloseTo(p95(e2e(only(steady))), 1)
  })

  it('apply every change up to the conversation, in time order', () => {
    const base = generated([])[0]!
    expect(base).toBeDefined()
    const agent = {
      id: 'a',
      name: 'A',
      domain: { systemPrompt: 'Be kind.' } as never,
      specialistId: 's',
      latencyScale: 1,
    }
    const later = { ...change, at: change.at + hour, instruction: 'Be brief.', addedSeconds: 0.1 }
    const at = agentVersionAt(agent, 0, change.at + 2 * hour, [later, change])
    expect(at.domain.systemPrompt).toBe('Be kind. Always offer the caller a callback. Be brief.')
    expect(at.addedLatencySeconds).toBeCloseTo(0.4, 9)
    expect(agentVersionAt(agent, 0, change.at - 1, [later, change])).toBe(agent)
    expect(agentVersionAt(agent, 1, change.at + 2 * hour, [later, change])).toBe(agent)
  })
})
