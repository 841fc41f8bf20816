import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import { runMigrations } from '../../core/clickhouse/clickhouse-migrations.ts'
import { toAvroRecord } from '../../core/event/event-record.ts'
import { parsePriceCsv } from '../../core/pricing/price-csv.ts'
import { PriceRuleError } from '../../core/pricing/price-row.ts'
import { addPrices, readPrices } from '../../core/pricing/price-store.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { conversationRows } from '../../services/worker/transform/conversation-rows.ts'
import { mergeRows } from '../../services/worker/write/batch-rows.ts'
import { insertTableRows } from '../../services/worker/write/clickhouse-insert.ts'
import { embeddedClickHouse } from '../support/embedded-clickhouse.ts'

// The cost view (voice_analytics.conversation_costs, migration 0011) on the real schema, filled by
// the worker's own transform and insert: conversations of known durations, providers and times
// give the totals worked out by hand, to the cent; a price change counts only from its time on;
// unpriced calls stay NULL; overlaps are refused. (conversation-costs-rules.integration.test.ts holds
// the view to the TypeScript rules on generated traffic.)
const database = 'voice_analytics'
const changeAt = Date.parse('2026-03-01T00:00:00Z')

/** Per-minute prices only, so every cost follows from duration, provider, direction and time. */
const prices = `component,telecom_provider,direction,agent_id,unit,price,currency,valid_from
telephony,Twilio,,,minute,0.01,EUR,2026-01-01
telephony,Twilio,outbound,,minute,0.02,EUR,2026-01-01
telephony,Telnyx,,,minute,0.008,EUR,2026-01-01
stt,,,,minute,0.006,EUR,2026-01-01
tts,,,,minute,0.012,EUR,2026-01-01
llm,,,,minute,0.03,EUR,2026-01-01
call_fee,,,,call,0.05,EUR,2026-01-01
`

interface Known {
  startAt: number
  seconds: number
  provider?: string
  campaign: boolean
}
// Two days before the change, two after; each with a phone call of each kind and a web call.
const known: Known[] = [
  { startAt: changeAt - 86_400_000, seconds: 61, provider: 'Twilio', campaign: false },
  { startAt: changeAt - 86_400_000, seconds: 120, provider: 'Twilio', campaign: true },
  { startAt: changeAt - 3_600_000, seconds: 30, provider: 'Telnyx', campaign: false },
  { startAt: changeAt - 1, seconds: 90, campaign: false },
  { startAt: changeAt, seconds: 61, provider: 'Twilio', campaign: false },
  { startAt: changeAt + 3_600_000, seconds: 120, provider: 'Twilio', campaign: true },
  { startAt: changeAt + 86_400_000, seconds: 30, provider: 'Telnyx', campaign: false },
  { startAt: changeAt + 86_400_000, seconds: 45, provider: 'Vonage', campaign: false },
]

let dir: string
let client: ClickHouseClient

async function rows<T>(query: string): Promise<T[]> {
  return (await client.query({ query, format: 'JSONEachRow' })).json<T>()
}

async function storeKnownConversations(): Promise<void> {
  const events = generateConversations({
    count: known.length,
    seed: 25,
    failedRoomRate: 0,
    testRunRate: 0,
    campaignRate: 1,
    webCallRate: 0,
  })
  const deliveries = events.map((event, index) => {
    const call = known[index]!
    const data = { ...event.data }
    data.start_time = new Date(call.startAt).toISOString()
    data.duration_seconds = call.seconds
    data.telecom_provider = call.provider
    if (!call.campaign) {
      data.campaign_id = undefined
      data.campaign_name = undefined
      data.campaign_item_id = undefined
    }
    const record = toAvroRecord({ ...event, data }, { source: 'prod', receivedAt: changeAt + 7 * 86_400_000 })
    return {
      rows: conversationRows(record, { topic: 'known', partition: 0, offset: index, timestampMs: changeAt }),
    }
  })
  // Delivered twice: the view reads with FINAL, so each counts once.
  await insertTableRows(client, database, mergeRows(deliveries), 'known-1')
  await insertTableRows(client, database, mergeRows(deliveries), 'known-2')
}

interface CostRow {
  event_time: string
  telecom_provider: string | null
  direction: string | null
  billed_telephony_minutes: number
  telephony_cost: number | null
  cost: number | null
  unpriced: boolean
  unpriced_components: string[]
}
const costs = () =>
  rows<CostRow>(`SELECT event_time, telecom_provider, direction, billed_telephony_minutes, telephony_cost, cost,
      unpriced, unpriced_components
    FROM ${database}.conversation_costs WHERE session_id NOT LIKE '%-generated%' ORDER BY event_time, telecom_provider`)

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'va-costs-'))
  client = embeddedClickHouse(join(dir, 'clickhouse'))
  await runMigrations(client, database)
  await storeKnownConversations()
  await addPrices(client, database, parsePriceCsv(prices))
})

afterAll(async () => {
  await client?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('conversation_costs', () => {
  it('costs conversations of known durations and providers as worked out by hand, to the cent', async () => {
    const all = await costs()
    expect(all.length).toBe(known.length)
    // Per minute of duration for every conversation: STT 0.006 + TTS 0.012 + LLM 0.03 = 0.048/min.
    // Telephony per started minute: Twilio 0.01 (outbound 0.02), Telnyx 0.008; fee 0.05 per call.
    const byHand = [
      0.01 * 2 + (0.048 * 61) / 60 + 0.05, // Twilio inbound, 61 s: 2 minutes
      0.02 * 2 + 0.048 * 2 + 0.05, // Twilio outbound (campaign), 120 s
      0.008 * 1 + (0.048 * 30) / 60 + 0.05, // Telnyx, 30 s
      0 + (0.048 * 90) / 60 + 0.05, // web call: no telephony
      0.01 * 2 + (0.048 * 61) / 60 + 0.05,
      0.02 * 2 + 0.048 * 2 + 0.05,
      0.008 * 1 + (0.048 * 30) / 60 + 0.05,
    ]
    const priced = all.filter((row) => !row.unpriced)
    expect(priced.map((row) => row.cost)).toEqual(byHand.map((value) => expect.closeTo(value, 6)))
    expect(priced.map((row) => row.direction)).toEqual([
      'inbound',
      'outbound',
      'inbound',
      null,
      'inbound',
      'outbound',
      'inbound',
    ])
    const [total] = await rows<{ total: number }>(
      `SELECT round(sum(cost), 2) AS total FROM ${database}.conversation_costs`,
    )
    expect(total!.total.toFixed(2)).toBe(byHand.reduce((sum, value) => sum + value, 0).toFixed(2))
  })

  it('shows a provider without a price as unpriced: NULL and the component named, never zero', async () => {
    const vonage = (await costs()).filter((row) => row.telecom_provider === 'Vonage')
    expect(vonage).toEqual([
      expect.objectContaining({
        cost: null,
        telephony_cost: null,
        unpriced: true,
        unpriced_components: ['telephony'],
      }),
    ])
  })

  it('a price change on a date changes the cost only from that time on', async () => {
    const before = await costs()
    await addPrices(client, database, [
      {
        origin: 'test',
        row: {
          component: 'telephony',
          telecom_provider: 'Twilio',
          direction: '',
          agent_id: '',
          unit: 'minute',
          price: '0.05',
          currency: 'EUR',
          valid_from: changeAt,
          note: '',
        },
      },
    ])
    const after = await costs()
    const changed = after.map((row, index) => row.cost !== before[index]!.cost)
    // Only the Twilio inbound call at the change itself: 2 minutes at 0.05 instead of 0.01. The
    // outbound ones keep their own price; the calls before the change keep theirs.
    expect(changed).toEqual([false, false, false, false, true, false, false, false])
    expect(after[4]!.telephony_cost).toBe(0.1)
    expect(after[4]!.cost! - before[4]!.cost!).toBeCloseTo(0.08, 6)
  })

  it('refuses a price overlapping a stored one and stores nothing of the refused change', async () => {
    const stored = (await readPrices(client, database)).length
    const overlapping = {
      origin: 'line 2',
      row: {
        component: 'telephony' as const,
        telecom_provider: 'Telnyx',
        direction: '' as const,
        agent_id: '',
        unit: 'minute' as const,
        price: '0.009',
        currency: 'EUR',
        valid_from: Date.parse('2025-12-01T00:00:00Z'),
        valid_to: Date.parse('2026-02-01T00:00:00Z'),
        note: '',
      },
    }
    await expect(addPrices(client, database, [overlapping])).rejects.toThrow(PriceRuleError)
    await expect(addPrices(client, database, [overlapping])).rejects.toThrow(
      'line 2: telephony Telnyx either direction from 2025-12-01T00:00:00.000Z until 2026-02-01T00:00:00.000Z ' +
        'overlaps the stored price from 2026-01-01T00:00:00.000Z',
    )
    expect((await readPrices(client, database)).length).toBe(stored)
  })
})
