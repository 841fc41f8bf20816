import type { ClickHouseClient } from '../../../core/clickhouse/clickhouse.ts'
import { agentHours } from '../../../core/clickhouse/latency-hour-rollup.ts'
import type { Logger } from '../../../core/runtime/logger.ts'
import type { Registry } from '../../../core/runtime/metrics.ts'
import type { Config } from '../../../core/settings/env.ts'
import { createDomainMetrics, recordConversations } from '../observe/domain-metrics.ts'
import { parseLabelList } from '../observe/metric-label-limit.ts'
import type { TableRows } from '../transform/table-rows.ts'
import { mergeRows, oneRowPerVersion } from './batch-rows.ts'
import { insertTableRows, type TableWrite } from './clickhouse-insert.ts'
import { CountOnCommit, messageCounts } from './count-on-commit.ts'
import { divideFirstDeliveries } from './first-deliveries.ts'
import { withoutConversations } from './forgotten-conversations.ts'
import type { HourRollupKeeper } from './hour-rollup-keeper.ts'
import { KnownSessions } from './known-sessions.ts'
import { loadKnownSessionKeys } from './known-sessions-query.ts'
import { emptyStoredKeys, planWrite } from './redelivery-plan.ts'
import { forgottenConversations, storedKeys } from './stored-keys.ts'

// The worker's one write to ClickHouse: a batch's rows in, what must be stored out, and which of
// its messages count a conversation. First deliveries of conversations the worker does not know
// (the common write) are written as they are, without asking ClickHouse anything before the
// inserts; the others are planned from what ClickHouse holds of them (redelivery-plan.ts): the
// newest delivery only, tombstones for what it no longer has, nothing for a forgotten one. The hour
// rollup is recomputed off the write: the write tells hour-rollup-keeper.ts which hours it changed.
// A failure anywhere fails the attempt, which the batch writer retries.
// What the worker knows is loaded from ClickHouse when it starts reading partitions it did not hold
// (another worker may have written them) and grows with every write and every `forget`.
export interface ConversationWriteDeps {
  clickhouse: ClickHouseClient
  /** A second client (embedded: a second session) on which the item rows are written in parallel. */
  itemsClient?: ClickHouseClient
  config: Pick<
    Config,
    | 'CLICKHOUSE_DATABASE'
    | 'METRICS_AGENT_ALLOWLIST'
    | 'METRICS_AGENT_LIMIT'
    | 'METRICS_LABEL_VALUE_LIMIT'
    | 'METRICS_LIVE_WINDOW_SECONDS'
  >
  registry: Registry
  logger: Logger
  /** Told the agent-hours each write changed, once its inserts returned (hour-rollup-keeper.ts). */
  hourRollup?: Pick<HourRollupKeeper, 'touched'>
  /** The inserts (tests: one that dies after them). */
  insert?: typeof insertTableRows
}

export function createConversationWrite({
  clickhouse,
  itemsClient,
  config,
  registry,
  logger,
  hourRollup,
  insert = insertTableRows,
}: ConversationWriteDeps) {
  const database = config.CLICKHOUSE_DATABASE
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
  const known = new KnownSessions()
  let knownIsCurrent = false
  let heldPartitions = new Set<string>()

  async function knownSessions(): Promise<KnownSessions> {
    if (!knownIsCurrent) {
      known.replace(await loadKnownSessionKeys(clickhouse, database))
      knownIsCurrent = true
      logger.debug({ sessions: known.size }, 'known conversations loaded')
    }
    return known
  }

  /** The conversations that need a look at ClickHouse, planned: newest delivery, tombstones, forgotten left out. */
  async function planLookedUp(rows: TableRows) {
    const nothingStored = { ...emptyStoredKeys(), sources: [] }
    if (rows.conversations.length === 0)
      return { rows, digest: '', stored: nothingStored, forgotten: new Set<string>() }
    const forgotten = await forgottenConversations(clickhouse, database, rows)
    if (forgotten.size > 0)
      logger.info({ conversations: forgotten.size }, 'conversations erased by forget are not stored again')
    const remaining = withoutConversations(rows, forgotten)
    const stored =
      remaining.conversations.length === 0 ? nothingStored : await storedKeys(clickhouse, database, remaining)
    const plan = planWrite(remaining, stored)
    if (plan.tombstones > 0 || plan.supersededDeliveries > 0)
      logger.debug(
        { tombstones: plan.tombstones, supersededDeliveries: plan.supersededDeliveries },
        're-delivered conversations: only the newest delivery stays visible',
      )
    return { rows: plan.rows, digest: plan.digest, stored, forgotten }
  }

  /** Writes a batch's rows under the writer's deduplication token; resolves once ClickHouse holds them. */
  async function write(incoming: TableRows, token: string): Promise<TableWrite[]> {
    const sessions = await knownSessions()
    const divided = divideFirstDeliveries(incoming, (session) => sessions.has(session))
    const lookedUp = await planLookedUp(divided.lookup)
    const planned = oneRowPerVersion(
      divided.lookup.conversations.length === 0
        ? divided.first
        : mergeRows([{ rows: divided.first }, { rows: lookedUp.rows }]),
    )
    const messages = withoutConversations(incoming, lookedUp.forgotten).conversations
    for (const { message, counted } of messageCounts(messages, planned, lookedUp.stored.sources))
      counts.decided(message, counted)
    // Known from now on, before the insert: an attempt retried after a partial write looks them up.
    sessions.add(planned.conversations.map((row) => row.session_id))
    const writes = await insert(
      clickhouse,
      database,
      planned,
      lookedUp.digest ? `${token}:${lookedUp.digest}` : token,
      itemsClient,
    )
    hourRollup?.touched(agentHours(planned.agent_latency_feed))
    for (const row of messages) counts.landed(row)
    return writes
  }

  return {
    write,
    /** `offset` (the next to read) of the partition is committed: count what its messages before it stored first. */
    committed(topic: string, partition: number, offset: string): void {
      for (const { conversation, items } of counts.committed(topic, partition, offset))
        recordConversations(metrics, [conversation], items)
    },
    /** A rebalance left this worker these partitions: the new owners count the others'. */
    assigned(partitions: ReadonlySet<string>): void {
      counts.assigned(partitions)
      // Partitions it did not hold may hold conversations another worker stored meanwhile.
      if ([...partitions].some((partition) => !heldPartitions.has(partition))) knownIsCurrent = false
      heldPartitions = new Set(partitions)
    },
    /** A partition is read from its committed offset: what was decided before it is someone's commit. */
    readingFrom(topic: string, partition: number, offset: string): void {
      counts.readingFrom(topic, partition, offset)
    },
    /** `forget` erased these conversations (in this process): a re-delivery of one is looked up, and dropped. */
    forgotten(sessionIds: readonly string[]): void {
      known.add(sessionIds)
    },
  }
}

export type ConversationWrite = ReturnType<typeof createConversationWrite>
