import { beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { database, queryRows } from '../support/embedded-clickhouse.ts'
import { databaseBeforeMigration, migrateThrough, runMigrationAgain } from './migration-test-support.ts'

// Migration 0006 gives the latency rollup the states of unflagged values beside those of all values
// (#14): a database made by 0001-0005 keeps its rollup rows, which (never checked) read as unflagged;
// after it the view fills both from the feed; a feed row without the unflagged arrays (an older
// writer, a tombstone) counts all its values as unflagged. Running its statements again does no harm.
describe('migration 0006 on an existing database', () => {
  const opened = databaseBeforeMigration(6)
  let client: ClickHouseClient

  const feed = (columns: string, values: string, token: string) =>
    client.command({
      query: `INSERT INTO ${database}.agent_latency_feed (agent_id, minute, session_id, source, version, ${columns})
        SETTINGS insert_deduplication_token = '${token}'
        VALUES ${values}`,
    })

  const rollup = () =>
    queryRows<Record<string, unknown>>(
      client,
      `SELECT session_id,
          sum(e2e_latency_count) AS all_n, sum(e2e_latency_unflagged_count) AS clean_n,
          max(e2e_latency_max) AS all_max, max(e2e_latency_unflagged_max) AS clean_max,
          quantileTDigestMerge(1)(e2e_latency_quantiles) AS all_top,
          quantileTDigestMerge(1)(e2e_latency_unflagged_quantiles) AS clean_top,
          sum(end_of_turn_delay_unflagged_count) AS clean_eot_n
        FROM ${database}.agent_latency_minute FINAL
        GROUP BY session_id ORDER BY session_id`,
    )

  beforeAll(async () => {
    client = opened.client
    await feed(
      'e2e_latency, llm_node_ttft, tts_node_ttfb, transcription_delay, end_of_turn_delay',
      `('a', '2026-04-01 08:00:00', 'old', 'prod', 1, [0.8, 600], [0.2], [0.1], [], [0.3])`,
      'test-0006-before',
    )
  })

  const before = {
    session_id: 'old',
    all_n: 2,
    clean_n: 2,
    all_max: 600,
    clean_max: 600,
    all_top: 600,
    clean_top: 600,
    clean_eot_n: 1,
  }

  it('keeps the rollup rows, which read as unflagged, and fills both states from then on', async () => {
    const report = await migrateThrough(client, 6)
    expect(report.applied.map((migration) => migration.version)).toEqual([6])
    expect(await rollup()).toEqual([before])

    await feed(
      'e2e_latency, llm_node_ttft, tts_node_ttfb, transcription_delay, end_of_turn_delay, ' +
        'e2e_latency_unflagged, llm_node_ttft_unflagged, tts_node_ttfb_unflagged, transcription_delay_unflagged, end_of_turn_delay_unflagged',
      `('a', '2026-04-01 08:01:00', 'new', 'prod', 1, [0.9, 0.7, 3600], [0.2], [0.1], [], [0.3], [0.9, 0.7], [0.2], [0.1], [], [])`,
      'test-0006-after',
    )
    // Written as an older worker (or a tombstone) does: without the unflagged arrays.
    await feed(
      'e2e_latency, llm_node_ttft, tts_node_ttfb, transcription_delay, end_of_turn_delay',
      `('a', '2026-04-01 08:02:00', 'unchecked', 'prod', 1, [1.5], [], [], [], [])`,
      'test-0006-unchecked',
    )
    expect(await rollup()).toEqual([
      {
        session_id: 'new',
        all_n: 3,
        clean_n: 2,
        all_max: 3600,
        clean_max: 0.9,
        all_top: 3600,
        clean_top: 0.9,
        clean_eot_n: 0,
      },
      before,
      {
        session_id: 'unchecked',
        all_n: 1,
        clean_n: 1,
        all_max: 1.5,
        clean_max: 1.5,
        all_top: 1.5,
        clean_top: 1.5,
        clean_eot_n: 0,
      },
    ])
  })

  it('runs again without harm', async () => {
    const stored = await rollup()
    await runMigrationAgain(client, 6)
    expect(await rollup()).toEqual(stored)
    expect(stored).toHaveLength(3)
  })
})
