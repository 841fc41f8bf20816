import type {
  ConversationCompleteEvent,
  ConversationData,
  HistoryItem,
  Origin,
} from '../../../core/event/conversation-complete.types.ts'
import type { AvroRecord } from '../../../core/event/event-record.ts'
import { timestampMs } from './clickhouse-values.ts'
import { conversationKeyTime, type KeyTimeSource } from './conversation-key-time.ts'
import type { ContextColumns } from './table-rows.ts'
import { TransformError } from './transform-error.ts'

// What the rows of every table of one conversation are built from, computed once per conversation
// before any row: its keys (the key time needs every item's times, so they are parsed here, once,
// for the item rows too) and the payload's values more than one table carries.
export interface Delivery {
  topic: string
  partition: number
  offset: number
  /** Kafka message timestamp (ms): the version when the record has no received_at. */
  timestampMs: number
}

type Decoded = ConversationCompleteEvent & {
  source?: string | null
  received_at?: number | null
  origin?: Origin | null
}

export interface ConversationContext {
  envelope: Decoded
  data: ConversationData
  history: readonly HistoryItem[]
  delivery: Delivery
  /** One object: the rows there are one or a few of per conversation spread it. */
  columns: ContextColumns
  keyTimeSource: KeyTimeSource
  receivedAt: number | null
  createdAt: number | null
  startTime: number | null
  agentJoinedAt: number | null
  campaignId: string | null
  testRunId: string | null
  /** Per history item (epoch ms): created_at, metrics.started_speaking_at, metrics.stopped_speaking_at. */
  itemCreatedAt: (number | null)[]
  itemStartedAt: (number | null)[]
  itemStoppedAt: (number | null)[]
}

export function conversationContext(record: AvroRecord, delivery: Delivery): ConversationContext {
  const envelope = record as Decoded
  const data: ConversationData = envelope.data
  if (typeof data?.session_id !== 'string' || data.session_id === '')
    throw new TransformError('data.session_id', 'missing or empty')
  const history = data.history ?? []
  const count = history.length

  const receivedAt = typeof envelope.received_at === 'number' ? envelope.received_at : null
  const createdAt = timestampMs(data.created_at, 'data.created_at')
  const startTime = timestampMs(data.start_time, 'data.start_time')
  const agentJoinedAt = timestampMs(data.agent_joined_at, 'data.agent_joined_at')
  // The items' times first: the key time (on every row) may come from the earliest of them.
  const itemCreatedAt: (number | null)[] = new Array(count)
  const itemStartedAt: (number | null)[] = new Array(count)
  const itemStoppedAt: (number | null)[] = new Array(count)
  let earliestItemTime: number | null = null
  for (let index = 0; index < count; index++) {
    const item = history[index]!
    const metrics = item.metrics
    const created = timestampMs(item.created_at, 'created_at', index)
    const started = timestampMs(metrics?.started_speaking_at, 'metrics.started_speaking_at', index)
    const stopped = timestampMs(metrics?.stopped_speaking_at, 'metrics.stopped_speaking_at', index)
    itemCreatedAt[index] = created
    itemStartedAt[index] = started
    itemStoppedAt[index] = stopped
    for (const ms of [created, started, stopped])
      if (ms !== null && (earliestItemTime === null || ms < earliestItemTime)) earliestItemTime = ms
  }
  const keyTime = conversationKeyTime({ startTime, createdAt, others: [agentJoinedAt, earliestItemTime] })
  return {
    envelope,
    data,
    history,
    delivery,
    columns: {
      session_id: data.session_id,
      event_time: keyTime.ms,
      agent_id: data.agent_id ?? '',
      agent_name: data.agent_name ?? null,
      source: envelope.source ?? '',
      version: receivedAt ?? delivery.timestampMs,
      is_deleted: 0,
    },
    keyTimeSource: keyTime.source,
    receivedAt,
    createdAt,
    startTime,
    agentJoinedAt,
    campaignId: data.campaign_id ?? null,
    testRunId: data.test_run_id ?? null,
    itemCreatedAt,
    itemStartedAt,
    itemStoppedAt,
  }
}
