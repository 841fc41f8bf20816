import { beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { mergeRows } from '../../services/worker/write/batch-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { withImpossibleMetrics } from '../fixtures/impossible-metrics.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import {
  databaseBeforeMigration,
  fitTodaysRows,
  migrateThrough,
  runMigrationAgain,
} from './migration-test-support.ts'

// Migration 0014 gives conversation_latency each conversation's turns counted per heatmap band:
// rows stored before it get them (the table is rebuilt from the base tables), and they add up to
// what the item rows say, band by band, unflagged and flagged apart. Running it again does no harm.
describe('migration 0014 on an existing database', () => {
  const opened = databaseBeforeMigration(14)
  let client: ClickHouseClient

  // The items' turns per band, and the rollup's, unflagged and flagged apart.
  const bounds = [0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5]
  const band = `arrayFirstIndex(bound -> e2e_latency <= bound, [${bounds.join(', ')}, inf])`
  const fromItems = () =>
    queryRows<{ flagged: number; band: number; turns: number }>(
      client,
      `SELECT notEmpty(metric_flags) AS flagged, ${band} AS band, count() AS turns
        FROM ${database}.conversation_items FINAL WHERE e2e_latency IS NOT NULL
        GROUP BY flagged, band ORDER BY flagged, band`,
    )
  const fromRollup = () =>
    queryRows<{ flagged: number; band: number; turns: number }>(
      client,
      `SELECT flagged, band, turns FROM (
          SELECT flagged, bands FROM (
            SELECT 0 AS flagged, sumForEach(e2e_latency_unflagged_bands) AS bands FROM ${database}.conversation_latency FINAL
            UNION ALL
            SELECT 1, sumForEach(e2e_latency_flagged_bands) FROM ${database}.conversation_latency FINAL))
        ARRAY JOIN bands AS turns, arrayEnumerate(bands) AS band
        WHERE turns > 0 ORDER BY flagged, band`,
    )

  beforeAll(async () => {
    client = opened.client
    await fitTodaysRows(client)
    // Every fourth with impossible metrics (flagged items), where its history is long enough.
    const flagged = (event: ConversationCompleteEvent, index: number) => {
      try {
        return index % 4 === 0 ? withImpossibleMetrics(event, `0014-${index}`).event : event
      } catch {
        return event
      }
    }
    const sent = generateConversations({ count: 60, seed: 14 }).map((event, index) =>
      toAvroRecord(flagged(event, index), { source: 'prod', receivedAt: 1 }),
    )
    const rows = mergeRows(
      sent.map((record, offset) => ({
        rows: conversationRows(record, { topic: 't', partition: 0, offset, timestampMs: 1 }),
      })),
    )
    await insertTableRows(client, database, rows, 'test-0014-base')
  })

  it('counts every stored turn in its band, from the rows stored before it', async () => {
    await migrateThrough(client, 14)
    const items = await fromItems()
    expect(items.filter((row) => Number(row.flagged) === 1).length, 'flagged turns').toBeGreaterThan(0)
    expect(items.length, 'turns in several bands').toBeGreaterThan(4)
    expect(
      (await fromRollup()).map((row) => [Number(row.flagged), Number(row.band), Number(row.turns)]),
    ).toEqual(items.map((row) => [Number(row.flagged), Number(row.band), Number(row.turns)]))
  })

  it('can run again without changing what it built', async () => {
    const before = await fromRollup()
    await runMigrationAgain(client, 14)
    expect(await fromRollup()).toEqual(before)
  })
})
