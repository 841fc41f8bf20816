import { describe, expect, it } from 'vitest'
import { type CostedCall, conversationCost, effectivePrice } from './conversation-cost.ts'
import type { PriceRow } from './price-row.ts'

const day = (date: string) => Date.parse(`${date}T00:00:00Z`)
const price = (row: Partial<PriceRow> & Pick<PriceRow, 'component' | 'unit' | 'price'>): PriceRow => ({
  telecom_provider: '',
  direction: '',
  agent_id: '',
  currency: 'EUR',
  valid_from: day('2026-01-01'),
  note: '',
  ...row,
})
const prices: PriceRow[] = [
  price({ component: 'telephony', telecom_provider: 'Twilio', unit: 'minute', price: '0.010000' }),
  price({
    component: 'telephony',
    telecom_provider: 'Twilio',
    direction: 'outbound',
    unit: 'minute',
    price: '0.020000',
  }),
  price({
    component: 'telephony',
    telecom_provider: 'Twilio',
    unit: 'minute',
    price: '0.030000',
    valid_from: day('2026-03-01'),
  }),
  price({ component: 'stt', unit: 'minute', price: '0.006000' }),
  price({ component: 'tts', unit: 'turn', price: '0.001000' }),
  price({ component: 'tts', agent_id: 'agent-b', unit: 'minute', price: '0.012000' }),
  price({ component: 'llm', unit: 'turn', price: '0.002500' }),
  price({ component: 'call_fee', unit: 'call', price: '0.050000' }),
]
const call = (overrides: Partial<CostedCall> = {}): CostedCall => ({
  eventTime: day('2026-02-01'),
  agentId: 'agent-a',
  telecomProvider: 'Twilio',
  durationSeconds: 61,
  userTurns: 4,
  agentTurns: 5,
  ...overrides,
})

describe('conversationCost', () => {
  it('bills telephony per started minute, the other minute prices by the second, turns per turn', () => {
    // 61 s: 2 telephony minutes at 0.01; STT 61/60 min at 0.006; TTS 5 agent turns at 0.001;
    // LLM 5 agent turns at 0.0025; fee 0.05.
    expect(conversationCost(prices, call())).toEqual({
      components: { telephony: 0.02, stt: 0.0061, tts: 0.005, llm: 0.0125, call_fee: 0.05 },
      cost: 0.0936,
      unpriced: [],
    })
    expect(conversationCost(prices, call({ durationSeconds: 60 })).components.telephony).toBe(0.01)
    expect(conversationCost(prices, call({ durationSeconds: 0.2 })).components.telephony).toBe(0.01)
  })

  it("takes the direction's price over either direction's; campaign calls are outbound", () => {
    expect(conversationCost(prices, call({ campaignId: 'c1' })).components.telephony).toBe(0.04)
  })

  it("takes the agent's price over every agent's", () => {
    // agent-b's TTS is per minute: 61/60 * 0.012.
    expect(conversationCost(prices, call({ agentId: 'agent-b' })).components.tts).toBe(0.0122)
  })

  it('applies a price change only from its valid_from on', () => {
    const before = call({ eventTime: day('2026-03-01') - 1 })
    const after = call({ eventTime: day('2026-03-01') })
    expect(conversationCost(prices, before).components.telephony).toBe(0.02)
    expect(conversationCost(prices, after).components.telephony).toBe(0.06)
    // The outbound price has no change: still 0.02 a minute after it.
    expect(conversationCost(prices, { ...after, campaignId: 'c1' }).components.telephony).toBe(0.04)
  })

  it('a web call has no telephony', () => {
    expect(conversationCost(prices, call({ telecomProvider: undefined })).components.telephony).toBe(0)
  })

  it('a provider without a price, a call before any price or without a duration is unpriced, never zero', () => {
    const vonage = conversationCost(prices, call({ telecomProvider: 'Vonage' }))
    expect(vonage.cost).toBeUndefined()
    expect(vonage.unpriced).toEqual(['telephony'])
    expect(conversationCost(prices, call({ eventTime: day('2025-12-31') })).unpriced).toEqual([
      'telephony',
      'stt',
      'tts',
      'llm',
      'call_fee',
    ])
    expect(conversationCost(prices, call({ durationSeconds: undefined })).unpriced).toEqual(['duration'])
  })

  it('a price with valid_to stops there: the call after it is unpriced', () => {
    const ending = [
      ...prices.filter((row) => row.component !== 'call_fee'),
      price({ component: 'call_fee', unit: 'call', price: '0.05', valid_to: day('2026-02-01') }),
    ]
    expect(conversationCost(ending, call({ eventTime: day('2026-02-01') - 1 })).unpriced).toEqual([])
    expect(conversationCost(ending, call()).unpriced).toEqual(['call_fee'])
  })
})

describe('effectivePrice', () => {
  it('finds the price of a key valid at a time', () => {
    const key = { component: 'telephony', telecom_provider: 'Twilio', direction: '', agent_id: '' } as const
    expect(effectivePrice(prices, key, day('2026-02-15'))?.price).toBe('0.010000')
    expect(effectivePrice(prices, key, day('2026-03-15'))?.price).toBe('0.030000')
    expect(effectivePrice(prices, key, day('2025-01-01'))).toBeUndefined()
  })
})
