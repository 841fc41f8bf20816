import avro from 'avsc'
import { createChdbConnection } from 'chdb/connection'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import type { ConversationCompleteEvent } from '../../core/event/conversation-complete.types.ts'
import { type AvroRecord, toAvroRecord } from '../../core/event/event-record.ts'
import { eventAvroSchema } from '../../core/event/event-schema.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { emptyTableRows, type TableRows, tableNames } from '../../services/worker/transform/table-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { planWrite } from '../../services/worker/write/redelivery-plan.ts'
import { storedKeys } from '../../services/worker/write/stored-keys.ts'
import { withImpossibleMetrics } from '../fixtures/impossible-metrics.ts'
import { loadAllFixtures, loadFixture } from '../fixtures/index.ts'
import { embeddedClickHouse, queryRows, tempDataDir } from '../support/embedded-clickhouse.ts'
import { insertTableRowsAsJsonCompact } from './json-compact-reference-insert.ts'

// The Native route stores exactly what the JSONCompactEachRow route stored (#12). The same writes,
// planned as the worker plans them (stored keys, tombstones of a re-delivery), go through the old
// route into one database and through the new one (items on a second session, as the worker
// writes) into another; every table, the rollup behind its view included, is then compared row by
// row as ClickHouse prints it, with and without FINAL. The writes: every fixture (every item
// kind, tool calls paired and without output, handoffs, tests, campaigns, unknown fields), metric
// flags, generated conversations, timestamps at both ends of the range (1900, 2299), unicode and
// nulls everywhere, a write retried under its token, and re-deliveries with fewer items and
// another agent, and one conversation delivered twice within a write. One deliberate difference,
// checked apart: -0 stays -0 (JSON text turned it into 0).
const avroType = avro.Type.forSchema(eventAvroSchema as avro.Schema)
const topic = 'voice.conversation-complete.v1'

interface Sent {
  event: ConversationCompleteEvent
  receivedAt: number
}

/** The decoded record the worker would see: the event as the ingress made it, through Avro bytes. */
const decoded = ({ event, receivedAt }: Sent): AvroRecord =>
  avroType.fromBuffer(avroType.toBuffer(toAvroRecord(event, { source: 'prod', receivedAt }))) as AvroRecord

function rowsOf(sent: readonly Sent[], firstOffset: number): TableRows {
  const all = emptyTableRows()
  sent.forEach((one, index) => {
    const rows = conversationRows(decoded(one), {
      topic,
      partition: 0,
      offset: firstOffset + index,
      timestampMs: one.receivedAt,
    })
    for (const table of tableNames) (all[table] as unknown[]).push(...(rows[table] as unknown[]))
  })
  return all
}

/** Range ends, unicode, nulls, a tool call without output and an output without call, a handoff. */
function edgeConversation(): ConversationCompleteEvent {
  const event = structuredClone(loadFixture('tool-calls'))
  const data = event.data
  data.session_id = 'edge-ränge-ends-🎧'
  data.agent_name = 'Agent «Ünïcode» 東京'
  data.start_time = '1900-01-01T00:00:00Z'
  data.created_at = '1900-01-01T00:00:00.000Z'
  data.audio_url_expires_at = '2299-12-31T23:59:59.999Z'
  data.url_parameters = { ключ: 'значение', empty: '', 'quote"\\': '\u0000\n\t' }
  data.history = [
    { role: 'user' },
    {
      role: 'User',
      content: `Grüße 🎧 "quoted" \\ \u0000 ${'東'.repeat(50)}`,
      kind: 'Message',
      created_at: '1900-01-01T00:00:00.000Z',
      transcript_confidence: 1,
      metrics: {
        started_speaking_at: '1900-01-01T00:00:00Z',
        stopped_speaking_at: '1900-01-01T00:00:01.5Z',
        transcription_delay: 0.1 + 0.2,
        end_of_turn_delay: 1e-300,
      },
    },
    {
      role: 'Assistant',
      content: '',
      kind: 'Message',
      created_at: '2299-12-31T23:59:59.999Z',
      interrupted: true,
      metrics: { e2e_latency: 123456.789, llm_node_ttft: 5e-324, tts_node_ttfb: 0 },
    },
    {
      role: 'Assistant',
      kind: 'FunctionCall',
      tool_name: 'never_answered',
      tool_call_id: 'call-without-output',
      tool_arguments_json: '{"ü":1}',
      tools_added: [],
    },
    {
      role: 'Tool',
      kind: 'FunctionCallOutput',
      tool_name: 'orphan',
      tool_call_id: 'output-without-call',
      tool_output: '',
      tool_is_error: false,
    },
    {
      role: 'System',
      kind: 'AgentHandoff',
      created_at: '2299-12-31T23:59:59.999Z',
      handoff_to_agent_id: 'agent-ß',
      instructions: null,
      tools_added: ['ä', ''],
    },
  ]
  return event
}

/** The same conversation delivered again later, with fewer items (and, if asked, another agent). */
function redelivered(
  event: ConversationCompleteEvent,
  keep: number,
  agentId?: string,
): ConversationCompleteEvent {
  const again = structuredClone(event)
  again.data.history = (again.data.history ?? []).slice(0, keep)
  if (agentId) again.data.agent_id = agentId
  return again
}

type Route = (database: string, rows: TableRows, token: string) => Promise<unknown>

describe('the Native route against the JSONCompactEachRow route', () => {
  const data = tempDataDir('native-equivalence')
  let client: ClickHouseClient
  let itemsClient: ClickHouseClient
  let jsonConnection: ReturnType<typeof createChdbConnection>
  const routes: Record<'json' | 'native', { database: string; insert: Route }> = {
    json: {
      database: 'va_json_route',
      insert: (database, rows, token) =>
        insertTableRowsAsJsonCompact(jsonConnection.chdb, database, rows, token),
    },
    native: {
      database: 'va_native_route',
      insert: (database, rows, token) => insertTableRows(client, database, rows, token, itemsClient),
    },
  }

  /** As the worker writes: plan against what the route's database holds, then insert the plan. */
  const write = async (route: keyof typeof routes, rows: TableRows, token: string) => {
    const { database, insert } = routes[route]
    const plan = planWrite(rows, await storedKeys(client, database, rows))
    await insert(database, plan.rows, `${token}:${plan.digest}`)
    return plan
  }

  const fixtures = Object.values(loadAllFixtures())
  const flagged = withImpossibleMetrics(loadFixture('interruptions'), 'flagged').event
  const edge = edgeConversation()
  const generated = generateConversations({ count: 40, seed: 12, historyItems: 24 })
  const first: Sent[] = [...fixtures, flagged, edge, ...generated].map((event, index) => ({
    event,
    receivedAt: Date.UTC(2026, 10, 1) + index,
  }))
  const later = Date.UTC(2026, 10, 2)
  const second: Sent[] = [
    { event: redelivered(loadFixture('tool-calls'), 6), receivedAt: later },
    { event: redelivered(loadFixture('handoff'), 3, 'another-agent'), receivedAt: later + 1 },
    { event: redelivered(edge, 2), receivedAt: later + 2 },
    { event: redelivered(generated[0]!, 5), receivedAt: later + 3 },
    // One conversation twice in one write: the plan keeps one delivery, so no block holds two rows
    // of one key (the Native route inserts with optimize_on_insert = 0, the reference with 1).
    { event: redelivered(generated[1]!, 4), receivedAt: later + 4 },
    { event: redelivered(generated[1]!, 7), receivedAt: later + 5 },
  ]

  beforeAll(async () => {
    client = embeddedClickHouse(data.dir)
    itemsClient = embeddedClickHouse(data.dir)
    jsonConnection = createChdbConnection({ path: data.dir })
    for (const route of Object.values(routes)) await runMigrations(client, route.database)
    for (const route of ['json', 'native'] as const) {
      const firstRows = rowsOf(first, 100)
      await write(route, firstRows, 'first')
      // A retry of the same write under the same token: dropped by both.
      await write(route, firstRows, 'first')
      const plan = await write(route, rowsOf(second, 1000), 'second')
      expect(plan.tombstones, route).toBeGreaterThan(0)
    }
  })

  afterAll(async () => {
    await jsonConnection?.close()
    await itemsClient?.close()
    await client?.close()
    data.remove()
  })

  const storedTables = [
    ...tableNames.filter((table) => !table.endsWith('_feed')),
    'agent_latency_minute',
    'conversation_latency',
  ]

  /** A table's rows as ClickHouse prints them (JSONEachRow lines), sorted; inserted_at left out. */
  const printed = async (database: string, table: string, final: boolean) => {
    const columns = await queryRows<{ name: string }>(
      client,
      `SELECT name FROM system.columns WHERE database = '${database}' AND table = '${table}'
        AND name != 'inserted_at' ORDER BY position`,
    )
    const result = await client.query({
      query: `SELECT ${columns.map((column) => column.name).join(', ')} FROM ${database}.${table}${final ? ' FINAL' : ''}`,
      format: 'JSONEachRow',
    })
    return (await result.text())
      .split('\n')
      .filter((line) => line !== '')
      .sort()
  }

  for (const final of [false, true])
    it(`stores the same rows in every table${final ? ' (FINAL)' : ', tombstones and replaced rows included'}`, async () => {
      for (const table of storedTables) {
        const json = await printed(routes.json.database, table, final)
        const native = await printed(routes.native.database, table, final)
        expect(json.length, table).toBeGreaterThan(0)
        expect(native, table).toEqual(json)
      }
    })

  it('covers what it claims: range ends, flags, tombstones, tool calls without output, handoffs', async () => {
    const database = routes.native.database
    const [facts] = await queryRows<Record<string, number>>(
      client,
      `SELECT
        (SELECT count() FROM ${database}.conversation_items WHERE toYear(created_at) = 1900) AS items_1900,
        (SELECT count() FROM ${database}.conversation_items WHERE toYear(created_at) = 2299) AS items_2299,
        (SELECT count() FROM ${database}.conversation_items WHERE notEmpty(metric_flags)) AS flagged_items,
        (SELECT count() FROM ${database}.conversation_items WHERE is_deleted = 1) AS item_tombstones,
        (SELECT count() FROM ${database}.tool_calls WHERE output_item_index IS NULL) AS calls_without_output,
        (SELECT count() FROM ${database}.handoffs) AS handoffs,
        (SELECT count() FROM ${database}.agent_latency_minute WHERE is_deleted = 1) AS rollup_tombstones,
        (SELECT count() FROM ${database}.conversations WHERE agent_id = 'another-agent') AS moved_agent`,
    )
    for (const [name, count] of Object.entries(facts!)) expect(count, name).toBeGreaterThan(0)
  })

  it('keeps -0 as -0, where JSON text stored 0', async () => {
    const event = structuredClone(loadFixture('web-call'))
    event.data.session_id = 'negative-zero'
    event.data.duration_seconds = -0
    const rows = rowsOf([{ event, receivedAt: later + 10 }], 5000)
    const signs = []
    for (const route of ['json', 'native'] as const) {
      await write(route, rows, 'negative-zero')
      const [row] = await queryRows<{ bits: string }>(
        client,
        `SELECT toString(reinterpretAsUInt64(duration_seconds)) AS bits FROM ${routes[route].database}.conversations
          WHERE session_id = 'negative-zero'`,
      )
      signs.push(row?.bits)
    }
    expect(signs).toEqual(['0', String(2n ** 63n)])
  })
})
