import { Counter, Histogram, type Registry } from '../../../core/runtime/metrics.ts'
import { type MetricFlag, metricFlagNames } from '../transform/metric-quality.ts'
import type { ConversationItemRow, ConversationRow, TableRows } from '../transform/table-rows.ts'
import { conversationTiming } from './live-conversation.ts'
import { createLabelLimit, type LabelLimit } from './metric-label-limit.ts'
import { createTurnTakingMetrics, recordTurnTaking } from './turn-taking-metrics.ts'

// What the conversations say, as Prometheus metrics: conversations, failed rooms, test results,
// campaign calls, per-agent turn latency and turn-taking. Each conversation is counted once, however often it
// is delivered: only the message that first stores it counts it (newConversations), and only once
// its offset is committed (count-on-commit.ts: retries, rewinds, rebalances). Counters are per
// process and start at 0 with it (as every Prometheus counter does); rate() and increase() handle that.
// They describe what is happening now, since alerts page on them: only live conversations
// (live-conversation.ts) count in them; a backfill, a replay or a conversation without a time counts
// in voice_conversations_backfilled_total alone, so that it shows without paging (docs/alerting.md).
export interface DomainLabelSettings {
  /** Agent names that get their own `agent` label; empty: the first `agentLimit` names seen. */
  agentAllowlist: readonly string[]
  agentLimit: number
  /** Distinct values per open enumeration (status, provider, test status, ...) and source. */
  valueLimit: number
  onOverflow?: (label: string, value: string) => void
  /** How far from the worker's clock a conversation may be and still count as now (METRICS_LIVE_WINDOW_SECONDS). */
  liveWindowMs: number
}

/** Turn latency buckets (seconds): voice agents answer in ~0.3-3 s; SLOs sit around 1-2 s. */
export const latencyBuckets = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 8, 13]

export const latencyMetrics = {
  e2e_latency: 'voice_e2e_latency_seconds',
  llm_node_ttft: 'voice_llm_node_ttft_seconds',
  tts_node_ttfb: 'voice_tts_node_ttfb_seconds',
} as const
type LatencyColumn = keyof typeof latencyMetrics

export function createDomainMetrics(registry: Registry, settings: DomainLabelSettings) {
  const limit = (label: string, options: { limit: number; allowlist?: readonly string[] }): LabelLimit =>
    createLabelLimit({ ...options, onOverflow: (value) => settings.onOverflow?.(label, value) })
  const labels = {
    agent: limit('agent', { limit: settings.agentLimit, allowlist: settings.agentAllowlist }),
    source: limit('source', { limit: settings.valueLimit }),
    status: limit('status', { limit: settings.valueLimit }),
    telecomProvider: limit('telecom_provider', { limit: settings.valueLimit }),
    testStatus: limit('test_status', { limit: settings.valueLimit }),
    completionReason: limit('completion_reason', { limit: settings.valueLimit }),
    campaign: limit('campaign', { limit: settings.valueLimit }),
  }
  const latency = (column: LatencyColumn) =>
    new Histogram({
      name: latencyMetrics[column],
      help: `${column} of agent turns without metric flags (seconds), by agent, for latency SLOs`,
      labelNames: ['agent'] as const,
      buckets: latencyBuckets,
      registers: [registry],
    })
  // The flags are a fixed set: each series exists from the start, at 0, so rate() sees the first one.
  const metricFlags = new Counter({
    name: 'voice_metric_flags_total',
    help: 'Flagged history items of stored conversations (docs/metric-quality.md), by flag; an item with two flags counts in both',
    labelNames: ['flag'] as const,
    registers: [registry],
  })
  for (const flag of metricFlagNames) metricFlags.inc({ flag }, 0)
  return {
    labels,
    liveWindowMs: settings.liveWindowMs,
    metricFlags,
    conversations: new Counter({
      name: 'voice_conversations_total',
      help: 'Live conversations stored (each once, however often delivered; within METRICS_LIVE_WINDOW_SECONDS of now), by source, status and telecom provider',
      labelNames: ['source', 'status', 'telecom_provider'] as const,
      registers: [registry],
    }),
    backfilled: new Counter({
      name: 'voice_conversations_backfilled_total',
      help: 'Conversations stored that are not live (older or later than METRICS_LIVE_WINDOW_SECONDS from now, or without a time), which no other voice_* metric counts, by timing and whether the room failed',
      labelNames: ['source', 'timing', 'room_failed'] as const,
      registers: [registry],
    }),
    failedRooms: new Counter({
      name: 'voice_failed_rooms_total',
      help: 'Conversations whose room failed (room_metadata.failed), by agent',
      labelNames: ['source', 'agent'] as const,
      registers: [registry],
    }),
    testResults: new Counter({
      name: 'voice_test_results_total',
      help: 'Automated test conversations, by test status, success (true, false, unknown) and completion reason',
      labelNames: ['source', 'test_status', 'success', 'completion_reason'] as const,
      registers: [registry],
    }),
    campaignConversations: new Counter({
      name: 'voice_campaign_conversations_total',
      help: 'Outbound campaign conversations (campaign items), by status and whether the room failed',
      labelNames: ['source', 'status', 'room_failed'] as const,
      registers: [registry],
    }),
    // e2e_latency by what the user chooses per call, for the per-campaign and per-provider
    // percentile alerts; only turns of campaign calls and of calls with a telecom provider.
    campaignLatency: new Histogram({
      name: 'voice_campaign_e2e_latency_seconds',
      help: 'e2e_latency of agent turns without metric flags in outbound campaign calls (seconds), by campaign name',
      labelNames: ['campaign'] as const,
      buckets: latencyBuckets,
      registers: [registry],
    }),
    telecomLatency: new Histogram({
      name: 'voice_telecom_e2e_latency_seconds',
      help: 'e2e_latency of agent turns without metric flags in phone calls (seconds), by telecom provider',
      labelNames: ['telecom_provider'] as const,
      buckets: latencyBuckets,
      registers: [registry],
    }),
    turnTaking: createTurnTakingMetrics(registry),
    latency: {
      e2e_latency: latency('e2e_latency'),
      llm_node_ttft: latency('llm_node_ttft'),
      tts_node_ttfb: latency('tts_node_ttfb'),
    },
  }
}

export type DomainMetrics = ReturnType<typeof createDomainMetrics>

/** What identifies a conversation across deliveries (its agent and key time may change). */
export const conversationKey = (row: Pick<ConversationRow, 'session_id'>) => row.session_id

/**
 * The conversations of a write that ClickHouse does not hold yet, each once (a write can carry
 * the same conversation twice when the platform re-sent it quickly), with their items. Pure.
 */
export function newConversations(
  rows: Pick<TableRows, 'conversations' | 'conversation_items'>,
  stored: ReadonlySet<string>,
): { conversations: ConversationRow[]; items: ConversationItemRow[] } {
  const chosen = new Map<string, ConversationRow>()
  for (const row of rows.conversations) {
    const key = conversationKey(row)
    if (!stored.has(key) && !chosen.has(key)) chosen.set(key, row)
  }
  // Items of the chosen delivery only (a twice-sent conversation has two sets of the same items),
  // each item index once: per conversation its version and the indexes taken.
  const taken = new Map<string, { version: number; indexes: Set<number> }>()
  for (const row of chosen.values())
    taken.set(conversationKey(row), { version: row.version, indexes: new Set() })
  const uniqueItems: ConversationItemRow[] = []
  for (const item of rows.conversation_items) {
    const conversation = taken.get(conversationKey(item))
    if (conversation === undefined || conversation.version !== item.version) continue
    if (conversation.indexes.has(item.item_index)) continue
    conversation.indexes.add(item.item_index)
    uniqueItems.push(item)
  }
  return { conversations: [...chosen.values()], items: uniqueItems }
}

const latencyColumns = Object.keys(latencyMetrics) as LatencyColumn[]

const successLabel = (success: boolean | null) => (success === null ? 'unknown' : String(success))

/**
 * Counts new live conversations and their items' metric flags, and observes the turn latencies of
 * unflagged items; a conversation that is not live at `nowMs` counts in `backfilled` only.
 */
export function recordConversations(
  metrics: DomainMetrics,
  conversations: readonly ConversationRow[],
  items: readonly ConversationItemRow[],
  nowMs: number = Date.now(),
): void {
  const { labels } = metrics
  const agentOf = new Map<string, string>()
  const campaignOf = new Map<string, string>()
  const providerOf = new Map<string, string>()
  for (const row of conversations) {
    const source = labels.source(row.source)
    const timing = conversationTiming(row, nowMs, metrics.liveWindowMs)
    if (timing !== 'live') {
      // Its items stay out too (no agentOf entry): their latencies and flags are not today's.
      metrics.backfilled.inc({ source, timing, room_failed: String(row.room_failed === true) })
      continue
    }
    const agent = labels.agent(row.agent_name ?? row.agent_id)
    const key = conversationKey(row)
    agentOf.set(key, agent)
    // Calls outside a campaign, and web calls (no provider), stay out of those histograms: as
    // `unknown` they would mix unrelated traffic into one alerting series.
    if (row.campaign_id !== null) campaignOf.set(key, labels.campaign(row.campaign_name ?? row.campaign_id))
    if (row.telecom_provider) providerOf.set(key, labels.telecomProvider(row.telecom_provider))
    metrics.conversations.inc({
      source,
      status: labels.status(row.status),
      telecom_provider: labels.telecomProvider(row.telecom_provider),
    })
    if (row.room_failed === true) metrics.failedRooms.inc({ source, agent })
    recordTurnTaking(metrics.turnTaking, row, agent)
    if (row.test_run_id !== null || row.test_id !== null)
      metrics.testResults.inc({
        source,
        test_status: labels.testStatus(row.test_status),
        success: successLabel(row.test_success),
        completion_reason: labels.completionReason(row.test_completion_reason),
      })
    if (row.campaign_id !== null || row.campaign_item_id !== null)
      metrics.campaignConversations.inc({
        source,
        status: labels.status(row.status),
        room_failed: String(row.room_failed === true),
      })
  }
  const usable = (value: number | null): value is number =>
    value !== null && Number.isFinite(value) && value >= 0
  for (const item of items) {
    const key = conversationKey(item)
    const agent = agentOf.get(key)
    if (agent === undefined) continue
    for (const flag of item.metric_flags) metrics.metricFlags.inc({ flag: flag as MetricFlag })
    // A flagged item's values are not to be trusted (docs/metric-quality.md): the flag counter
    // shows them, the latency histograms (and so the latency alerts) leave them out.
    if (item.metric_flags.length > 0) continue
    for (const column of latencyColumns) {
      const value = item[column]
      if (usable(value)) metrics.latency[column].observe({ agent }, value)
    }
    if (!usable(item.e2e_latency)) continue
    const campaign = campaignOf.get(key)
    if (campaign !== undefined) metrics.campaignLatency.observe({ campaign }, item.e2e_latency)
    const provider = providerOf.get(key)
    if (provider !== undefined)
      metrics.telecomLatency.observe({ telecom_provider: provider }, item.e2e_latency)
  }
}
