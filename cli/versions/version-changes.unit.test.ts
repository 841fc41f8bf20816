import { describe, expect, it } from 'vitest'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { agentConfig, configFingerprint } from '../../services/worker/transform/agent-config.ts'
import { comparisonWindows } from './comparison-windows.ts'
import {
  agentVersions,
  type ConfigContent,
  contentKey,
  type FingerprintSeen,
  perCallValuesWarning,
  sentences,
} from './version-changes.ts'

const hour = 3_600_000
const t0 = Date.parse('2026-11-01T00:00:00Z')
const agent = 'agent-1'

const seen = (
  fingerprint: string,
  firstHour: number,
  lastHour: number,
  conversations: number,
): FingerprintSeen => ({
  agentId: agent,
  agentName: 'Claims',
  fingerprint,
  firstSeenMs: t0 + firstHour * hour,
  lastSeenMs: t0 + lastHour * hour,
  conversations,
})
const content = (instructions: string, tools: string[], updates: string[] = []): ConfigContent => ({
  instructions,
  updateInstructions: updates,
  tools,
  handoffTargets: [],
})

describe('agentVersions', () => {
  const v1 = content('Be brief. Verify the caller.', ['find_policy'])
  // The same configuration on a path that reached its update: one more tool and instructions.
  const v1Updated = content(
    'Be brief. Verify the caller.',
    ['find_policy', 'quote_renewal'],
    ['Caller verified.'],
  )
  const v2 = content('Be brief. Verify the caller first.', ['find_policy', 'send_link'])
  const contents = new Map([
    [contentKey(agent, 'a'), v1],
    [contentKey(agent, 'a+'), v1Updated],
    [contentKey(agent, 'b'), v2],
  ])

  it('folds a path that reaches an update into the version whose calls go on beside it', () => {
    // a+ first shows at hour 2 with parts never seen, but a's calls go on until hour 47: a path.
    const versions = agentVersions(
      [seen('a', 0, 47, 40), seen('a+', 2, 46, 10), seen('b', 48, 96, 30)],
      contents,
    )
    expect(versions.map((version) => [version.number, version.fingerprints, version.conversations])).toEqual([
      [1, ['a', 'a+'], 50],
      [2, ['b'], 30],
    ])
    expect(versions[0]!.content.tools).toEqual(['find_policy', 'quote_renewal'])
    expect(versions[0]!.changed).toBeNull()
    expect(versions[1]!.changed).toEqual({
      instructions: { added: ['Verify the caller first.'], removed: ['Verify the caller.'] },
      updateInstructions: { added: [], removed: ['Caller verified.'] },
      tools: { added: ['send_link'], removed: ['quote_renewal'] },
      handoffTargets: { added: [], removed: [] },
    })
  })

  it('starts a version where the calls before stop, within the rollout grace', () => {
    // a's last call 30 minutes after a+ first showed: a rollout, not a path.
    const versions = agentVersions(
      [seen('a', 0, 10.5, 5), seen('a+', 10, 20, 5), seen('zz', 21, 30, 5)],
      new Map([...contents].filter(([key]) => !key.endsWith('zz'))),
    )
    // zz has no row in agent_versions: something new, shown as such.
    expect(versions.map((version) => version.fingerprints)).toEqual([['a'], ['a+'], ['zz']])
    expect(versions[1]!.changed!.tools).toEqual({ added: ['quote_renewal'], removed: [] })
    expect(versions[1]!.firstSeenMs).toBe(t0 + 10 * hour)
  })

  it('never replaces a version within the grace of its start: calls of one moment are one version', () => {
    // The only call that skipped the update came first, in the same minute as the first full one.
    const versions = agentVersions([seen('a', 0, 0, 1), seen('a+', 0.5, 30, 4)], contents)
    expect(versions.map((version) => version.fingerprints)).toEqual([['a', 'a+']])
  })

  it('starts a version where a part every call had stops, and not where a path leaves it out', () => {
    const withTool = content('Be brief.', ['find_policy', 'old_tool'])
    const without = content('Be brief.', ['find_policy'])
    const both = new Map([
      [contentKey(agent, 'with'), withTool],
      [contentKey(agent, 'without'), without],
    ])
    const removed = agentVersions([seen('with', 0, 24, 50), seen('without', 24, 48, 50)], both)
    expect(removed.map((version) => version.fingerprints)).toEqual([['with'], ['without']])
    expect(removed[1]!.changed!.tools).toEqual({ added: [], removed: ['old_tool'] })
    // The calls with the tool go on after the first call without it: a path, one version.
    const path = agentVersions([seen('with', 0, 48, 50), seen('without', 24, 47, 5)], both)
    expect(path.map((version) => version.fingerprints)).toEqual([['with', 'without']])
  })

  it('keeps agents apart and orders them by id', () => {
    const other = { ...seen('a', 5, 6, 1), agentId: 'agent-0', agentName: null }
    const versions = agentVersions(
      [seen('a', 0, 1, 1), other],
      new Map([...contents, [contentKey('agent-0', 'a'), v2]]),
    )
    expect(versions.map((version) => [version.agentId, version.number])).toEqual([
      ['agent-0', 1],
      [agent, 1],
    ])
  })
})

describe('agentVersions on generated calls', () => {
  it('finds the one change a generated agent makes, and no change in the paths of any agent', () => {
    const from = Date.parse('2026-03-02T00:00:00Z')
    const at = from + 36 * hour
    const events = generateConversations({
      count: 1500,
      seed: 32,
      from,
      spanHours: 72,
      agents: 3,
      historyItems: 16,
      versionChanges: [{ agentIndex: 0, at, instruction: 'Always offer a callback.', addedSeconds: 0.3 }],
    })
    // As the worker fingerprints them and the versions query counts them.
    const seenByKey = new Map<string, FingerprintSeen>()
    const contents = new Map<string, ConfigContent>()
    for (const event of events) {
      const config = agentConfig(event.data.history ?? [])
      if (!config) continue
      const fingerprint = configFingerprint(config)
      const agentId = event.data.agent_id!
      const startMs = Date.parse(event.data.start_time!)
      const key = contentKey(agentId, fingerprint)
      const entry = seenByKey.get(key)
      if (entry) {
        entry.firstSeenMs = Math.min(entry.firstSeenMs, startMs)
        entry.lastSeenMs = Math.max(entry.lastSeenMs, startMs)
        entry.conversations++
      } else
        seenByKey.set(key, {
          agentId,
          agentName: null,
          fingerprint,
          firstSeenMs: startMs,
          lastSeenMs: startMs,
          conversations: 1,
        })
      contents.set(key, config)
    }
    const versions = agentVersions([...seenByKey.values()], contents)
    const perAgent = new Map<string, typeof versions>()
    for (const version of versions)
      perAgent.set(version.agentId, [...(perAgent.get(version.agentId) ?? []), version])
    expect(perAgent.size).toBe(3)
    // More fingerprints than versions: updates and handoffs only some calls reach.
    expect(seenByKey.size).toBeGreaterThan(6)
    const changed = [...perAgent.values()].filter((own) => own.length > 1)
    expect(changed).toHaveLength(1)
    const [first, second] = changed[0]!
    expect(changed[0]).toHaveLength(2)
    expect(first!.lastSeenMs).toBeLessThan(at)
    expect(second!.firstSeenMs).toBeGreaterThanOrEqual(at)
    expect(second!.firstSeenMs).toBeLessThan(at + hour)
    // Sentence by sentence: the one added, nothing else.
    expect(second!.changed!.instructions).toEqual({ added: ['Always offer a callback.'], removed: [] })
    expect(second!.changed!.tools).toEqual({ added: [], removed: [] })
  })
})

describe('comparisonWindows', () => {
  it('gives equal windows either side, as long as both versions and the limit allow', () => {
    const versions = agentVersions(
      [seen('a', 0, 99, 10), seen('b', 100, 129, 10), seen('c', 130, 400, 10)],
      new Map([
        [contentKey(agent, 'a'), content('One.', [])],
        [contentKey(agent, 'b'), content('Two.', [])],
        [contentKey(agent, 'c'), content('Three.', [])],
      ]),
    )
    expect(comparisonWindows(versions, 48 * hour)).toEqual([
      // b: 100 h after a started, 30 h before c: 30 h either side.
      { before: [t0 + 70 * hour, t0 + 100 * hour], after: [t0 + 100 * hour, t0 + 130 * hour] },
      // c: 270 h of its own, but b ran only 30 h.
      { before: [t0 + 100 * hour, t0 + 130 * hour], after: [t0 + 130 * hour, t0 + 160 * hour] },
    ])
    expect(comparisonWindows(versions, 10 * hour)[1]).toEqual({
      before: [t0 + 120 * hour, t0 + 130 * hour],
      after: [t0 + 130 * hour, t0 + 140 * hour],
    })
  })
})

describe('sentences', () => {
  it('splits lines after a full stop, question or exclamation mark', () => {
    expect(sentences('Be brief. Ask one thing?\n# Facts\n- Excess is 300 euros! Towing 150 km.')).toEqual([
      'Be brief.',
      'Ask one thing?',
      '# Facts',
      '- Excess is 300 euros!',
      'Towing 150 km.',
    ])
  })
})

describe('perCallValuesWarning', () => {
  it('warns of an agent whose fingerprints were mostly seen in one call, not of one with a few versions', () => {
    const perCall = Array.from({ length: 12 }, (_, i) => seen(`f${i}`, i, i, i < 7 ? 1 : 3))
    expect(perCallValuesWarning(perCall)).toMatch(/^7 of 12 fingerprints were seen in one conversation only/)
    expect(perCallValuesWarning(perCall.slice(0, 9))).toBeNull()
    expect(perCallValuesWarning(perCall.map((entry) => ({ ...entry, conversations: 2 })))).toBeNull()
  })
})
