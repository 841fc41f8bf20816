import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { type ClickHouseClient, createClickHouse } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { type AvroRecord, toAvroRecord } from '../../core/event/event-record.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import type { ConversationRow, TableRows } from '../../services/worker/transform/table-rows.ts'
import { mergeRows } from '../../services/worker/write/batch-rows.ts'
import { insertRowsAndHourRollup } from '../../services/worker/write/clickhouse-insert.ts'
import { withImpossibleMetrics } from '../fixtures/impossible-metrics.ts'
import { assembledAsLivekitTrace } from '../support/otlp-fixture.ts'

// The real schema (the migrations) filled the way the worker fills it (its transform and its
// insert), with generated conversations over the hours before `now`; some delivered twice, as
// the platform may, so queries that forget FINAL count them twice; every `flaggedEvery`-th one
// carries the impossible metrics of test/fixtures/impossible-metrics.ts (flagged items).
export const database = 'voice_analytics'

export interface GeneratedData {
  now: Date
  from: Date
  conversations: number
  redelivered: number
  /** Conversations given impossible metrics. */
  flagged: number
  /** The conversation row of each conversation as stored (a re-delivery repeats its first delivery). */
  conversationRows: ConversationRow[]
}

export interface GenerateSettings {
  count: number
  hours: number
  redelivered: number
  seed: number
  /** Every n-th conversation gets impossible metrics (flagged items); 0: none. */
  flaggedEvery?: number
  /**
   * Every n-th other conversation arrives as LiveKit Agents would trace it (source `livekit`): its
   * spans assembled by the assembler's mapping (generator/livekit-trace.ts); 0: none.
   */
  otlpEvery?: number
}

/** A generated conversation as the assembler makes it of the spans LiveKit Agents would export. */
function assembledFromSpans(event: ConversationCompleteEvent, receivedAt: number): AvroRecord {
  const assembled = assembledAsLivekitTrace(event, 'livekit', receivedAt)
  const [conversation] = assembled?.conversations ?? []
  if (!conversation) throw new Error(`no conversation assembled of ${event.data.session_id}`)
  return { ...conversation.record, source: 'livekit', received_at: receivedAt }
}

export async function fillWithGeneratedConversations(
  client: ClickHouseClient,
  settings: GenerateSettings,
): Promise<GeneratedData> {
  await runMigrations(client, database)
  const now = new Date()
  const from = new Date(now.getTime() - settings.hours * 3600_000)
  const generatedEvents = generateConversations({
    count: settings.count,
    seed: settings.seed,
    from: from.getTime(),
    spanHours: settings.hours,
    historyItems: 12,
    failedRoomRate: 0.08,
    testRunRate: 0.25,
    campaignRate: 0.4,
    webCallRate: 0.15,
    // every agent changes its instructions halfway, its answers 200 ms slower: the dashboards' agent
    // changes and the regression rule have something to show, whatever is selected
    versionChanges: Array.from({ length: 6 }, (_, agentIndex) => ({
      agentIndex,
      at: from.getTime() + (settings.hours / 2) * 3600_000,
      instruction: 'Always offer a callback.',
      addedSeconds: 0.2,
    })),
  })
  const every = settings.flaggedEvery ?? 0
  const otlpEvery = settings.otlpEvery ?? 0
  let flagged = 0
  const events = generatedEvents.map((event, index) => {
    if (every === 0 || index % every !== 0) return event
    try {
      const altered = withImpossibleMetrics(event, 'flagged').event
      flagged++
      return altered
    } catch {
      return event // too short a history for every impossible value
    }
  })
  const deliveries = [...events, ...events.slice(0, settings.redelivered)].map((event, index) => {
    const receivedAt = now.getTime() - 1000 + (index >= events.length ? 500 : 0)
    const position = index % events.length
    const source = position % 5 === 0 ? 'staging' : 'prod'
    // not one given impossible metrics: those are the webhook's kind of fault
    const viaSpans = otlpEvery > 0 && position % otlpEvery === 1 && (every === 0 || position % every !== 0)
    const record = viaSpans
      ? assembledFromSpans(event, receivedAt)
      : toAvroRecord(event, { source, receivedAt })
    return {
      rows: conversationRows(record, {
        topic: 'generated',
        partition: 0,
        offset: index,
        timestampMs: receivedAt,
      }),
    }
  })
  for (let start = 0; start < deliveries.length; start += 250) {
    const rows: TableRows = mergeRows(deliveries.slice(start, start + 250))
    await insertRowsAndHourRollup(client, database, rows, `generated-${settings.seed}-${start}`)
  }
  return {
    now,
    from,
    conversations: events.length,
    redelivered: settings.redelivered,
    flagged,
    conversationRows: deliveries.slice(0, events.length).map(({ rows }) => rows.conversations[0]!),
  }
}

/**
 * An embedded engine in a directory of its own, filled in beforeAll (`client` and `generated` are set
 * once it ran; `prepare` adds what a test needs beside the conversations), closed and removed in afterAll.
 */
export function generatedClickHouse(
  prefix: string,
  settings: GenerateSettings,
  prepare?: (client: ClickHouseClient) => Promise<unknown>,
): { client: ClickHouseClient; generated: GeneratedData } {
  const dataDir = mkdtempSync(join(tmpdir(), `va-${prefix}-`))
  const fixture = {} as { client: ClickHouseClient; generated: GeneratedData }
  beforeAll(async () => {
    fixture.client = createClickHouse({
      CLICKHOUSE_DATA_DIR: dataDir,
      CLICKHOUSE_USER: 'default',
      CLICKHOUSE_PASSWORD: '',
    })
    fixture.generated = await fillWithGeneratedConversations(fixture.client, settings)
    await prepare?.(fixture.client)
  })
  afterAll(async () => {
    await fixture.client?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
  return fixture
}
