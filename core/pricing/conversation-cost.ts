import type { PriceComponent, PriceRow } from './price-row.ts'
import { validUntil } from './price-rules.ts'

// What one conversation costs under a set of prices: the rules the view
// voice_analytics.conversation_costs (migration 0011) applies in SQL, in TypeScript, so the tests
// can hold the two to each other and docs/costs.md has one statement of them.
// - A price applies from valid_from until valid_to, else until the next price of its key.
// - Telephony applies to phone calls (a telecom_provider): outbound for campaign calls, inbound
//   otherwise; the direction's price, else the provider's price for either direction; billed per
//   started minute (61 s is 2 minutes).
// - STT, TTS, LLM: the agent's price, else the price for every agent; per minute billed by the
//   second (duration / 60), or per turn (STT: user turns; TTS and LLM: agent turns).
// - call_fee: once per conversation, the agent's or every agent's.
// - A component that applies and has no price at the call's time makes the call unpriced: no
//   cost, the component named. A missing duration does the same ("duration").
// - Each component is rounded to 6 decimals, and so is their sum.

export interface CostedCall {
  /** Epoch milliseconds of event_time. */
  eventTime: number
  agentId: string
  telecomProvider?: string
  campaignId?: string
  durationSeconds?: number
  userTurns: number
  agentTurns: number
}

export interface CallCost {
  components: Partial<Record<PriceComponent, number>>
  /** Undefined when unpriced. */
  cost?: number
  unpriced: string[]
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6

/** The price of a key valid at `at`, if any. */
export function effectivePrice(
  prices: PriceRow[],
  key: Pick<PriceRow, 'component' | 'telecom_provider' | 'direction' | 'agent_id'>,
  at: number,
): PriceRow | undefined {
  const until = validUntil(prices)
  return prices.find(
    (row) =>
      row.component === key.component &&
      row.telecom_provider === key.telecom_provider &&
      row.direction === key.direction &&
      row.agent_id === key.agent_id &&
      row.valid_from <= at &&
      (until.get(row) === undefined || at < until.get(row)!),
  )
}

const keyOf = (component: PriceComponent, agentId: string) => ({
  component,
  telecom_provider: '',
  direction: '' as const,
  agent_id: agentId,
})

export function conversationCost(prices: PriceRow[], call: CostedCall): CallCost {
  const unpriced: string[] = []
  const components: CallCost['components'] = {}
  const seconds = call.durationSeconds ?? 0
  if (call.durationSeconds === undefined) unpriced.push('duration')
  if (call.telecomProvider !== undefined) {
    const provider = call.telecomProvider
    const direction = call.campaignId !== undefined ? 'outbound' : 'inbound'
    const price =
      effectivePrice(
        prices,
        { component: 'telephony', telecom_provider: provider, direction, agent_id: '' },
        call.eventTime,
      ) ??
      effectivePrice(
        prices,
        { component: 'telephony', telecom_provider: provider, direction: '', agent_id: '' },
        call.eventTime,
      )
    if (price === undefined) unpriced.push('telephony')
    else components.telephony = round6(Number(price.price) * Math.ceil(seconds / 60))
  } else components.telephony = 0
  for (const component of ['stt', 'tts', 'llm', 'call_fee'] as const) {
    const price =
      effectivePrice(prices, keyOf(component, call.agentId), call.eventTime) ??
      effectivePrice(prices, keyOf(component, ''), call.eventTime)
    if (price === undefined) {
      unpriced.push(component)
      continue
    }
    const turns = component === 'stt' ? call.userTurns : call.agentTurns
    const quantity = price.unit === 'call' ? 1 : price.unit === 'turn' ? turns : seconds / 60
    components[component] = round6(Number(price.price) * quantity)
  }
  if (unpriced.length > 0) return { components, unpriced }
  const cost = round6(Object.values(components).reduce((sum, value) => sum + value, 0))
  return { components, cost, unpriced }
}
