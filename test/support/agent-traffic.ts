import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import type { VersionChange } from '../../generator/agent-versions.ts'
import { conversationStream, createWorld } from '../../generator/conversation-generator.ts'
import { createRandom } from '../../generator/random.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { mergeRows } from '../../services/worker/write/batch-rows.ts'
import { insertRowsAndHourRollup } from '../../services/worker/write/clickhouse-insert.ts'
import { database } from './embedded-clickhouse.ts'

// Generated calls of a few agents at a steady rate over chosen stretches of time, stored the way
// the worker stores them (its transform and insert), with the agent changes a test or benchmark
// injects: what the latency regression rule (#32) is judged on.
export interface AgentTraffic {
  agents: number
  /** Calls per agent and hour (the generator spreads them evenly, its agents drawn at random). */
  callsPerAgentHour: number
  /** Stretches of time to fill: epoch ms and length in hours. */
  stretches: readonly { from: number; hours: number }[]
  versionChanges?: readonly VersionChange[]
  seed: number
}

const batch = 500

/** Stores the traffic; returns the number of conversations stored. */
export async function storeAgentTraffic(client: ClickHouseClient, traffic: AgentTraffic): Promise<number> {
  let stored = 0
  // one world for every stretch: the same agents (ids, latencies) now and in the weeks before
  const world = createWorld(createRandom(traffic.seed), { agents: traffic.agents, campaigns: 0, tests: 0 })
  for (const [index, stretch] of traffic.stretches.entries()) {
    const events = conversationStream({
      count: Math.round(traffic.agents * traffic.callsPerAgentHour * stretch.hours),
      seed: traffic.seed + index,
      from: stretch.from,
      spanHours: stretch.hours,
      world,
      failedRoomRate: 0,
      testRunRate: 0,
      campaignRate: 0,
      versionChanges: traffic.versionChanges ?? [],
    })
    let pending: { rows: ReturnType<typeof conversationRows> }[] = []
    for (const event of events) {
      const receivedAt = Date.parse(event.data.start_time ?? '') || stretch.from
      const record = toAvroRecord(event, { source: 'prod', receivedAt })
      pending.push({
        rows: conversationRows(record, {
          topic: 'traffic',
          partition: 0,
          offset: stored,
          timestampMs: receivedAt,
        }),
      })
      stored++
      if (pending.length === batch) {
        await insertRowsAndHourRollup(
          client,
          database,
          mergeRows(pending),
          `traffic-${traffic.seed}-${stored}`,
        )
        pending = []
      }
    }
    if (pending.length > 0)
      await insertRowsAndHourRollup(client, database, mergeRows(pending), `traffic-${traffic.seed}-${stored}`)
  }
  return stored
}
