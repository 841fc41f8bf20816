import type { ClickHouseClient } from '../core/clickhouse.ts'
import type { Config } from '../core/env.ts'
import { agentHours, recomputeLatencyHours, storedLatencyHours } from '../core/latency-hour-rollup.ts'
import type { Logger } from '../core/logger.ts'
import type { Registry } from '../core/metrics.ts'
import { sessionHash } from '../core/privacy/erasure/erasure-selector.ts'
import type { TableWrite } from './clickhouse-insert.ts'
import { CountOnCommit, type MessageSource, messageCounts } from './count-on-commit.ts'
import { createDomainMetrics, recordConversations } from './domain-metrics.ts'
import { withoutConversations } from './forgotten-conversations.ts'
import { parseLabelList } from './metric-label-limit.ts'
import {
  conversationsToInspect,
  emptyStoredKeys,
  planWrite,
  type StoredKey,
  type StoredKeys,
} from './redelivery-plan.ts'
import type { TableName, TableRows } from './table-rows.ts'

// What ClickHouse holds of a write's conversations, asked just before the write, so that the write
// leaves only the newest delivery visible (redelivery-plan.ts) and the domain metrics count each
// conversation once: a conversation the platform delivers twice, a batch retried after a crash and a
// partition re-read after a rebalance count once. First the conversation rows, by session_id (its
// bloom filter; agent and key time may have changed), with the message that stored each; then, only
// for conversations the write replaces by a newer delivery, the keys of their rows in every other
// table. Which message counts which conversation, and when, is count-on-commit.ts's decision: a
// conversation counts once its write landed and its offset is committed.
const lookupChunk = 1000

type Query = (query: string, params: Record<string, unknown>) => Promise<StoredKey[]>

// The stored rows' keys of each other table, for the conversations to inspect (the agents and
// campaigns narrow the read to their part of each sorting key).
const childLookups: Array<{ table: Exclude<TableName, 'conversations'>; select: string; where: string }> = [
  {
    table: 'conversation_items',
    select: 'agent_id, toUnixTimestamp64Milli(event_time) AS event_time, item_index',
    where: 'agent_id IN {agents:Array(String)}',
  },
  {
    table: 'tool_calls',
    select: 'agent_id, toUnixTimestamp64Milli(event_time) AS event_time, call_index',
    where: 'agent_id IN {agents:Array(String)}',
  },
  {
    table: 'handoffs',
    select: 'agent_id, toUnixTimestamp64Milli(event_time) AS event_time, item_index',
    where: 'agent_id IN {agents:Array(String)}',
  },
  {
    table: 'test_results',
    select: 'test_run_id, test_id, toUnixTimestamp64Milli(event_time) AS event_time',
    where: 'test_run_id IN {testRuns:Array(String)}',
  },
  {
    table: 'campaign_items',
    select: 'campaign_id, toUnixTimestamp64Milli(event_time) AS event_time, campaign_item_id',
    where: 'campaign_id IN {campaigns:Array(String)}',
  },
  {
    // The rollups' rows, which the write replaces through their feeds.
    table: 'agent_latency_feed',
    select: 'agent_id, toUnixTimestamp(minute) AS minute',
    where: 'agent_id IN {agents:Array(String)}',
  },
  {
    table: 'conversation_latency_feed',
    select: 'agent_id, toUnixTimestamp64Milli(event_time) AS event_time',
    where: 'agent_id IN {agents:Array(String)}',
  },
]
/** The table that holds what a feed wrote (its rollup). */
const feedRollups: Partial<Record<TableName, string>> = {
  agent_latency_feed: 'agent_latency_minute',
  conversation_latency_feed: 'conversation_latency',
}
const lookupTable = (table: TableName) => feedRollups[table] ?? table

/** The live rows' keys of a write's conversations, and the message that stored each conversation row. */
export async function storedKeys(
  client: ClickHouseClient,
  database: string,
  rows: Pick<TableRows, 'conversations'>,
): Promise<StoredKeys & { sources: Array<MessageSource & { session_id: string }> }> {
  const query: Query = async (text, params) => {
    const result = await client.query({
      query: text,
      query_params: params,
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    })
    return result.json<StoredKey>()
  }
  const stored = { ...emptyStoredKeys(), sources: [] as Array<MessageSource & { session_id: string }> }
  const sessions = [...new Set(rows.conversations.map((row) => row.session_id))]
  const context: Array<StoredKey & { test_run_id: string; campaign_id: string }> = []
  for (let start = 0; start < sessions.length; start += lookupChunk) {
    const found = (await query(
      `SELECT session_id, agent_id, toUnixTimestamp64Milli(event_time) AS event_time, version,
          ifNull(test_run_id, '') AS test_run_id, ifNull(campaign_id, '') AS campaign_id,
          kafka_topic, kafka_partition, kafka_offset
        FROM ${database}.conversations FINAL WHERE session_id IN {ids:Array(String)}`,
      { ids: sessions.slice(start, start + lookupChunk) },
    )) as Array<(typeof context)[number] & MessageSource>
    for (const { kafka_topic, kafka_partition, kafka_offset, ...row } of found) {
      context.push(row)
      stored.sources.push({ session_id: row.session_id, kafka_topic, kafka_partition, kafka_offset })
    }
  }
  // Read again (the live row is this very message's): any other delivery's rows not yet merged
  // away say it was not the first, so that a re-delivery read again is never counted twice.
  const messageKey = (source: MessageSource) =>
    `${source.kafka_topic}\u0000${source.kafka_partition}\u0000${source.kafka_offset}`
  const incoming = new Set(rows.conversations.map(messageKey))
  const readAgain = stored.sources
    .filter((source) => incoming.has(messageKey(source)))
    .map((source) => source.session_id)
  for (let start = 0; start < readAgain.length; start += lookupChunk)
    stored.sources.push(
      ...((await query(
        `SELECT DISTINCT session_id, kafka_topic, kafka_partition, kafka_offset
          FROM ${database}.conversations WHERE session_id IN {ids:Array(String)} AND is_deleted = 0`,
        { ids: readAgain.slice(start, start + lookupChunk) },
      )) as unknown as Array<MessageSource & { session_id: string }>),
    )
  for (const { test_run_id: _run, campaign_id: _campaign, ...key } of context)
    stored.conversations.push(key as StoredKeys['conversations'][number])
  const inspect = new Set(conversationsToInspect(rows, stored.conversations))
  if (inspect.size === 0) return stored
  const inspected = context.filter((row) => inspect.has(row.session_id))
  for (let start = 0; start < inspected.length; start += lookupChunk) {
    const chunk = inspected.slice(start, start + lookupChunk)
    const params = {
      ids: chunk.map((row) => row.session_id),
      agents: [...new Set(chunk.map((row) => row.agent_id))],
      testRuns: [...new Set(chunk.map((row) => row.test_run_id))],
      campaigns: [...new Set(chunk.map((row) => row.campaign_id))],
    }
    for (const { table, select, where } of childLookups)
      stored[table].push(
        ...(await query(
          `SELECT session_id, ${select} FROM ${database}.${lookupTable(table)} FINAL
            WHERE ${where} AND session_id IN {ids:Array(String)}`,
          params,
        )),
      )
  }
  return stored
}

/** The write's conversations that `forget` erased (forgotten_sessions holds SHA-256 of their ids). */
async function forgottenConversations(
  client: ClickHouseClient,
  database: string,
  rows: Pick<TableRows, 'conversations'>,
): Promise<Set<string>> {
  const byHash = new Map(rows.conversations.map((row) => [sessionHash(row.session_id), row.session_id]))
  if (byHash.size === 0) return new Set()
  const result = await client.query({
    query: `SELECT session_hash FROM ${database}.forgotten_sessions WHERE session_hash IN {hashes:Array(String)}`,
    query_params: { hashes: [...byHash.keys()] },
    format: 'JSONEachRow',
  })
  return new Set((await result.json<{ session_hash: string }>()).map((row) => byHash.get(row.session_hash)!))
}

/**
 * Wraps the worker's ClickHouse write: look up what is stored, write the plan (the newest delivery
 * of each conversation, tombstones for what it no longer has), and note which of its messages count
 * a conversation; they are counted once their offsets are committed (`committed`). A lookup that
 * fails fails the write attempt, which the worker retries as any other. The plan's digest goes into
 * the write's deduplication token: the same messages planned otherwise are other data.
 */
export function createNewestDeliveryWrite(
  clickhouse: ClickHouseClient,
  config: Pick<
    Config,
    | 'CLICKHOUSE_DATABASE'
    | 'METRICS_AGENT_ALLOWLIST'
    | 'METRICS_AGENT_LIMIT'
    | 'METRICS_LABEL_VALUE_LIMIT'
    | 'METRICS_LIVE_WINDOW_SECONDS'
  >,
  registry: Registry,
  logger: Logger,
) {
  const metrics = createDomainMetrics(registry, {
    agentAllowlist: parseLabelList(config.METRICS_AGENT_ALLOWLIST),
    agentLimit: config.METRICS_AGENT_LIMIT,
    valueLimit: config.METRICS_LABEL_VALUE_LIMIT,
    liveWindowMs: config.METRICS_LIVE_WINDOW_SECONDS * 1000,
    onOverflow: (label, value) =>
      logger.warn(
        { label, value },
        'metric label limit reached: further values of this label are counted as "other" ' +
          '(raise METRICS_AGENT_LIMIT / METRICS_LABEL_VALUE_LIMIT or set METRICS_AGENT_ALLOWLIST)',
      ),
  })
  const counts = new CountOnCommit()
  /**
   * The hour rollup of every agent-hour the write may have changed, recomputed once, before the
   * write counts as landed (so before its offsets are committed): the hours of the rollup rows it
   * wrote, tombstones included, and those of every row stored of a conversation ClickHouse held
   * before it (a re-delivery, a replay, a retried batch): an earlier write of it may have landed just
   * before a crash that kept its recompute from running, and a replay does not write its tombstones
   * again. First deliveries, the common write, need no lookup.
   */
  async function recomputeHourRollup(planned: TableRows, stored: StoredKeys['conversations']): Promise<void> {
    const sessions = [...new Set(stored.map((row) => row.session_id))]
    const storedHours = await storedLatencyHours(clickhouse, config.CLICKHOUSE_DATABASE, sessions)
    const hours = agentHours([
      ...planned.agent_latency_feed,
      ...storedHours.map(({ agent_id, hour }) => ({ agent_id, minute: hour })),
    ])
    if (hours.length > 0) await recomputeLatencyHours(clickhouse, config.CLICKHOUSE_DATABASE, hours)
  }
  async function writeNewest(
    incoming: TableRows,
    write: (planned: TableRows, planDigest: string) => Promise<TableWrite[]>,
  ): Promise<TableWrite[]> {
    const forgotten = await forgottenConversations(clickhouse, config.CLICKHOUSE_DATABASE, incoming)
    if (forgotten.size > 0)
      logger.info({ conversations: forgotten.size }, 'conversations erased by forget are not stored again')
    const rows = withoutConversations(incoming, forgotten)
    const stored =
      rows.conversations.length === 0
        ? { ...emptyStoredKeys(), sources: [] }
        : await storedKeys(clickhouse, config.CLICKHOUSE_DATABASE, rows)
    const plan = planWrite(rows, stored)
    if (plan.tombstones > 0 || plan.supersededDeliveries > 0)
      logger.debug(
        { tombstones: plan.tombstones, supersededDeliveries: plan.supersededDeliveries },
        're-delivered conversations: only the newest delivery stays visible',
      )
    for (const { message, counted } of messageCounts(rows.conversations, plan.rows, stored.sources))
      counts.decided(message, counted)
    const writes = await write(plan.rows, plan.digest)
    await recomputeHourRollup(plan.rows, stored.conversations)
    for (const row of rows.conversations) counts.landed(row)
    return writes
  }
  return {
    write: writeNewest,
    /** `offset` (the next to read) of the partition is committed: count what its messages before it stored first. */
    committed(topic: string, partition: number, offset: string): void {
      for (const { conversation, items } of counts.committed(topic, partition, offset))
        recordConversations(metrics, [conversation], items)
    },
    /** A rebalance left this worker these partitions: the new owners count the others'. */
    assigned(partitions: ReadonlySet<string>): void {
      counts.assigned(partitions)
    },
    /** A partition is read from its committed offset: what was decided before it is someone's commit. */
    readingFrom(topic: string, partition: number, offset: string): void {
      counts.readingFrom(topic, partition, offset)
    },
  }
}
