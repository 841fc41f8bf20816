import type { ClickHouseClient } from '../../../core/clickhouse/clickhouse.ts'
import { sessionHash } from '../../../core/privacy/erasure/erasure-selector.ts'
import type { TableName, TableRows } from '../transform/table-rows.ts'
import type { MessageSource } from './count-on-commit.ts'
import {
  conversationsToInspect,
  emptyStoredKeys,
  type StoredKey,
  type StoredKeys,
} from './redelivery-plan.ts'

// What ClickHouse holds of a write's conversations that the worker knows of (a re-delivery, a batch
// read again: first-deliveries.ts), asked just before the write, so that the write
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
export async function forgottenConversations(
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
