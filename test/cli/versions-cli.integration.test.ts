import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shiftDays } from '../../cli/send/fixture-dates.ts'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { mapDateTimes } from '../../core/event/date-time-fields.ts'
import type { BatchProducer } from '../../core/kafka/kafka-producer.ts'
import { loadFixture } from '../fixtures/index.ts'
import { voiceAnalytics } from '../support/dev-process.ts'
import { tempDataDir } from '../support/embedded-clickhouse.ts'
import { createTestTopic, testKafka } from '../support/kafka-test-helpers.ts'
import { freePort } from '../support/private-kafka.ts'
import { connectedProducer, produceEvents, testCodec } from '../support/produce-events.ts'
import { workerEnv } from '../support/worker-settings.ts'

// One agent's calls before and after a configuration change go through the worker's code (`replay`
// of the topic) into ClickHouse, and `versions` lists the change: the versions with their counts,
// what changed, and the figures of the windows either side (#32). Callers differ in every call (the
// call context of the System message), some calls of the first version never reach its update or
// handoff (another fingerprint, the same version), and a re-delivery changes no count.
const callsPerDay = 3
const daysPerVersion = 20

/** Call `n` of day `day`: the fixture `full` moved by whole days, as another caller's call. */
function call(day: number, n: number, changed: boolean): ConversationCompleteEvent {
  const event = mapDateTimes(loadFixture('full'), (text) => shiftDays(text, day)) as ConversationCompleteEvent
  const data = event.data
  data.session_id = `00000000-0000-4000-8000-${String(day * 100 + n).padStart(12, '0')}`
  let history = data.history!
  const system = history[0]!
  system.content = system
    .content!.replace('+4915223344556', `+49152${String(1000000 + day * 10 + n)}`)
    .replace('first_name: Hugo', `first_name: ${['Anna', 'Ben', 'Chloe'][n]}`)
  // Every other day the third caller hangs up before the update and the handoff.
  if (!changed && n === 2 && day % 2 === 0)
    history = history.filter((_, index) => ![7, 20, 21].includes(index))
  if (changed) {
    system.content = system.content!.replace(
      'Speak calmly and use short sentences.',
      'Speak calmly and use very short sentences.',
    )
    history[21]!.tools_added = [...history[21]!.tools_added!, 'send_photo_link']
    // The new version answers twice as slowly.
    for (const item of history) if (item.metrics?.e2e_latency) item.metrics.e2e_latency *= 2
  }
  data.history = history
  return event
}

const calls = (firstDay: number, changed: boolean) =>
  Array.from({ length: daysPerVersion }, (_, d) =>
    Array.from({ length: callsPerDay }, (_, n) => call(firstDay + d, n, changed)),
  ).flat()

interface VersionsJson {
  agents: Array<{
    agent_id: string
    versions: Array<{ version: number; fingerprints: string[]; conversations: number; tools: string[] }>
    changes: Array<{
      version: number
      first_seen: string
      changed: Record<string, { added: string[]; removed: string[] }>
      windows: { before: string[]; after: string[] }
      figures: Record<
        string,
        { before: { n: number; value: number }; after: { n: number; value: number }; comparison: string }
      >
    }>
  }>
}

describe('voice-analytics versions', () => {
  const data = tempDataDir('cli-versions')
  const before = calls(0, false)
  const after = calls(daysPerVersion, true)
  const agentId = before[0]!.data.agent_id!
  let producer: BatchProducer
  let topic: string
  let env: Record<string, string>

  const versions = async (...args: string[]) => (await voiceAnalytics(env, 'versions', ...args)).stdout
  const report = async () => JSON.parse(await versions('--json')) as VersionsJson

  beforeAll(async () => {
    const kafka = testKafka()
    topic = await createTestTopic(kafka, 'cli-versions', 1)
    producer = await connectedProducer(kafka)
    await produceEvents(producer, await testCodec(), topic, [...before, ...after])
    env = workerEnv(topic, data.dir, { DEV_SQL_PORT: String(await freePort()) })
    await voiceAnalytics(env, 'replay', '--from', 'earliest')
  })
  afterAll(async () => {
    await producer?.disconnect()
    data.remove()
  })

  it('lists the two versions with their conversations, the first with both of its paths', async () => {
    const { agents } = await report()
    expect(agents.map((agent) => agent.agent_id)).toEqual([agentId])
    const [first, second] = agents[0]!.versions
    expect(agents[0]!.versions).toHaveLength(2)
    expect(first).toMatchObject({ version: 1, conversations: 60, tools: ['apply_discount', 'quote_renewal'] })
    expect(first!.fingerprints).toHaveLength(2)
    expect(second).toMatchObject({
      version: 2,
      conversations: 60,
      tools: ['apply_discount', 'quote_renewal', 'send_photo_link'],
    })
    expect(second!.fingerprints).toHaveLength(1)
  })

  it('says what changed and compares equal windows either side, each with its number of calls', async () => {
    const change = (await report()).agents[0]!.changes[0]!
    const changeDay = Date.parse(before[0]!.data.start_time!) + daysPerVersion * 86_400_000
    expect(Date.parse(change.first_seen)).toBe(changeDay)
    expect(change.changed.instructions).toEqual({
      added: ['Speak calmly and use very short sentences.'],
      removed: ['Speak calmly and use short sentences.'],
    })
    expect(change.changed.tools).toEqual({ added: ['send_photo_link'], removed: [] })
    expect(change.changed.handoffTargets).toEqual({ added: [], removed: [] })
    // Seven days (the default window) either side: 21 calls each.
    expect(change.windows.before.map(Date.parse)).toEqual([changeDay - 7 * 86_400_000, changeDay])
    expect(change.windows.after.map(Date.parse)).toEqual([changeDay, changeDay + 7 * 86_400_000])
    // The fixture's room did not fail (its error_message only says the upload was retried).
    expect(change.figures.failed_room_rate).toMatchObject({
      before: { n: 21, value: 0 },
      after: { n: 21, value: 0 },
    })
    expect(change.figures.test_pass_rate).toMatchObject({ before: { n: 21, value: 1 }, after: { value: 1 } })
    const e2e = change.figures.e2e_latency_p50_s!
    expect(e2e).toMatchObject({ before: { n: 21 }, after: { n: 21 }, comparison: 'higher' })
    expect(e2e.after.value).toBeCloseTo(2 * e2e.before.value, 6)
    expect(change.figures.llm_ttft_p50_s!.comparison).toBe('unclear')
  })

  it('prints the change as a table, for one agent and since a time', async () => {
    const text = await versions('--agent', agentId)
    expect(text).toContain(`Agent Harbor Insurance Renewal Assistant (${agentId})`)
    expect(text).toMatch(/Change to v2 \([0-9a-f]{16}\), first seen/)
    expect(text).toMatch(
      /e2e latency p50, median call \(ms\)\s+\d+ \[\d+, \d+\]\s+21\s+\d+ \[\d+, \d+\]\s+21\s+higher/,
    )
    expect(await versions('--agent', 'no-such-agent')).toMatch(/No conversations/)
    expect(await versions('--since', '2999-01-01')).not.toContain('Change to v2')
  })

  it('counts each conversation once, in its newest delivery, when conversations are delivered again', async () => {
    // Five calls of the first version come again under another agent, five of the second as they were.
    const moved = before
      .slice(0, 5)
      .map((event) => ({ ...event, data: { ...event.data, agent_id: 'agent-moved' } }))
    await produceEvents(
      producer,
      await testCodec(),
      topic,
      [...moved, ...after.slice(0, 5)],
      'prod',
      () => Date.now() + 60_000,
    )
    await voiceAnalytics(env, 'replay', '--from', 'earliest')
    const { agents } = await report()
    const counts = Object.fromEntries(
      agents.map((agent) => [agent.agent_id, agent.versions.map((version) => version.conversations)]),
    )
    expect(counts).toEqual({ [agentId]: [55, 60], 'agent-moved': [5] })
  })
})
