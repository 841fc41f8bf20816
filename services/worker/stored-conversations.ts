import type { ClickHouseClient } from '../core/clickhouse.ts'
import type { Config } from '../core/env.ts'
import type { Logger } from '../core/logger.ts'
import type { Registry } from '../core/metrics.ts'
import type { TableWrite } from './clickhouse-insert.ts'
import {
  conversationKey,
  createDomainMetrics,
  newConversations,
  recordConversations,
} from './domain-metrics.ts'
import { parseLabelList } from './metric-label-limit.ts'
import type { ConversationRow, TableRows } from './table-rows.ts'

// Which conversations of a write ClickHouse already holds, asked just before the write: the
// domain metrics count only the others, so a conversation the platform delivers twice, a batch
// retried after a crash and a partition re-read after a rebalance count once. A conversation is
// stored when a row with its key (agent_id, event_time, session_id) exists. A write whose
// acknowledgement is lost and that is then retried finds its conversations stored and does not
// count them: metrics may undercount in that rare case, never double-count.
const lookupChunk = 1000

export async function storedConversationKeys(
  client: ClickHouseClient,
  database: string,
  conversations: readonly Pick<ConversationRow, 'agent_id' | 'event_time' | 'session_id'>[],
): Promise<Set<string>> {
  const stored = new Set<string>()
  for (let start = 0; start < conversations.length; start += lookupChunk) {
    const chunk = conversations.slice(start, start + lookupChunk)
    const times = chunk.map((row) => row.event_time)
    const result = await client.query({
      // session_id's bloom filter and the time range find the rows; the caller matches whole keys.
      query: `SELECT agent_id, toUnixTimestamp64Milli(event_time) AS event_time_ms, session_id
        FROM ${database}.conversations
        WHERE event_time >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')
          AND event_time <= fromUnixTimestamp64Milli({to:Int64}, 'UTC')
          AND session_id IN {ids:Array(String)}`,
      query_params: {
        from: Math.min(...times),
        to: Math.max(...times),
        ids: chunk.map((row) => row.session_id),
      },
      format: 'JSONEachRow',
    })
    for (const row of await result.json<{ agent_id: string; event_time_ms: string; session_id: string }>())
      stored.add(
        conversationKey({
          agent_id: row.agent_id,
          event_time: Number(row.event_time_ms),
          session_id: row.session_id,
        }),
      )
  }
  return stored
}

/**
 * Wraps the worker's ClickHouse write: look up what is stored, write, then count what was new.
 * A lookup that fails fails the write attempt, which the worker retries as any other.
 */
export function createDomainCounting(
  clickhouse: ClickHouseClient,
  config: Pick<
    Config,
    'CLICKHOUSE_DATABASE' | 'METRICS_AGENT_ALLOWLIST' | 'METRICS_AGENT_LIMIT' | 'METRICS_LABEL_VALUE_LIMIT'
  >,
  registry: Registry,
  logger: Logger,
) {
  const metrics = createDomainMetrics(registry, {
    agentAllowlist: parseLabelList(config.METRICS_AGENT_ALLOWLIST),
    agentLimit: config.METRICS_AGENT_LIMIT,
    valueLimit: config.METRICS_LABEL_VALUE_LIMIT,
    onOverflow: (label, value) =>
      logger.warn(
        { label, value },
        'metric label limit reached: further values of this label are counted as "other" ' +
          '(raise METRICS_AGENT_LIMIT / METRICS_LABEL_VALUE_LIMIT or set METRICS_AGENT_ALLOWLIST)',
      ),
  })
  return async function countNew(rows: TableRows, write: () => Promise<TableWrite[]>): Promise<TableWrite[]> {
    const stored =
      rows.conversations.length === 0
        ? new Set<string>()
        : await storedConversationKeys(clickhouse, config.CLICKHOUSE_DATABASE, rows.conversations)
    const writes = await write()
    const fresh = newConversations(rows, stored)
    recordConversations(metrics, fresh.conversations, fresh.items)
    return writes
  }
}
