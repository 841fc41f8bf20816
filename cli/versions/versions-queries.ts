import { sqlString } from '../../core/clickhouse/clickhouse.ts'
import type { Config } from '../../core/settings/env.ts'
import { runQueryRouted } from '../dev-endpoint/clickhouse-route.ts'
import type { CallValues } from './call-figures.ts'
import { type ConfigContent, contentKey, type FingerprintSeen } from './version-changes.ts'

// What `versions` reads, as read-only SQL (every table as with FINAL, the guard of `query`): the
// fingerprints per agent with first and last seen and their conversations, what each stands for,
// and the values of the agent's conversations around its changes. Counted from `conversations` at
// query time, so re-deliveries and erasures are reflected exactly (docs/sql-cookbook.md has the
// first query for analysts).

/** Rows of read-only SQL, as JSON objects. */
export type ReadRows = (sql: string) => Promise<Array<Record<string, unknown>>>

/** Through the pipeline's ClickHouse as `query` reaches it (a server, `./run dev`, or the data directory). */
export const routedReader =
  (config: Config): ReadRows =>
  async (sql) =>
    parseJsonEachRow(await runQueryRouted(config, { sql, format: 'JSONEachRow', final: true }))

export function parseJsonEachRow(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

const msLiteral = (ms: number) => `fromUnixTimestamp64Milli(toInt64(${Math.trunc(ms)}), 'UTC')`
const num = (value: unknown) => (value === null || value === undefined ? null : Number(value))

export async function readFingerprints(
  read: ReadRows,
  database: string,
  agentId?: string,
): Promise<FingerprintSeen[]> {
  const rows = await read(
    `SELECT agent_id, any(agent_name) AS agent_name, config_fingerprint,
        toUnixTimestamp64Milli(min(event_time)) AS first_seen, toUnixTimestamp64Milli(max(event_time)) AS last_seen,
        count() AS conversations
      FROM ${database}.conversations
      WHERE config_fingerprint IS NOT NULL${agentId === undefined ? '' : ` AND agent_id = ${sqlString(agentId)}`}
      GROUP BY agent_id, config_fingerprint
      ORDER BY agent_id, first_seen`,
  )
  return rows.map((row) => ({
    agentId: String(row.agent_id),
    agentName: row.agent_name === null ? null : String(row.agent_name),
    fingerprint: String(row.config_fingerprint),
    firstSeenMs: Number(row.first_seen),
    lastSeenMs: Number(row.last_seen),
    conversations: Number(row.conversations),
  }))
}

/** What each fingerprint of these agents stands for, by contentKey. */
export async function readContents(
  read: ReadRows,
  database: string,
  agentIds: readonly string[],
): Promise<Map<string, ConfigContent>> {
  if (agentIds.length === 0) return new Map()
  const rows = await read(
    `SELECT agent_id, config_fingerprint, instructions, update_instructions, tools, handoff_targets
      FROM ${database}.agent_versions
      WHERE agent_id IN (${agentIds.map(sqlString).join(', ')})
      LIMIT 1 BY agent_id, config_fingerprint`,
  )
  return new Map(
    rows.map((row) => [
      contentKey(String(row.agent_id), String(row.config_fingerprint)),
      {
        instructions: String(row.instructions),
        updateInstructions: row.update_instructions as string[],
        tools: row.tools as string[],
        handoffTargets: row.handoff_targets as string[],
      },
    ]),
  )
}

/** The values of one agent's conversations in [fromMs, toMs), each with its key time. */
export async function readCallValues(
  read: ReadRows,
  database: string,
  agentId: string,
  fromMs: number,
  toMs: number,
): Promise<Array<CallValues & { timeMs: number }>> {
  const where = (table: string) =>
    `${table}agent_id = ${sqlString(agentId)} AND ${table}event_time >= ${msLiteral(fromMs)} AND ${table}event_time < ${msLiteral(toMs)}`
  const rows = await read(
    `SELECT toUnixTimestamp64Milli(c.event_time) AS time_ms, c.e2e_latency_p50, c.e2e_latency_p95,
        c.llm_node_ttft_p50, c.tts_node_ttfb_p50,
        ifNull(c.room_failed, false) AS failed,
        c.test_success, c.dead_air_count, c.caller_barge_ins, c.agent_turn_count, k.cost
      FROM ${database}.conversations AS c
      LEFT JOIN (SELECT session_id, cost FROM ${database}.conversation_costs WHERE ${where('')}) AS k
        ON k.session_id = c.session_id
      WHERE ${where('c.')}`,
  )
  return rows.map((row) => ({
    timeMs: Number(row.time_ms),
    e2eP50: num(row.e2e_latency_p50),
    e2eP95: num(row.e2e_latency_p95),
    ttftP50: num(row.llm_node_ttft_p50),
    ttfbP50: num(row.tts_node_ttfb_p50),
    failed: Boolean(Number(row.failed)),
    testSuccess: row.test_success === null ? null : Boolean(row.test_success),
    deadAirCount: num(row.dead_air_count),
    callerBargeIns: num(row.caller_barge_ins),
    agentTurns: Number(row.agent_turn_count),
    cost: num(row.cost),
  }))
}
