import { describe, expect, it } from 'vitest'
import type {
  ConversationCompleteEvent,
  HistoryItem,
} from '../../../core/event/conversation-complete.types.ts'
import { generateConversations } from '../../../generator/conversation-generator.ts'
import { loadFixture } from '../../../test/fixtures/index.ts'
import { agentConfig, configFingerprint, normalisedInstructions } from './agent-config.ts'

const history = (event: ConversationCompleteEvent): HistoryItem[] => event.data.history ?? []
const fingerprintOf = (items: readonly HistoryItem[]) => {
  const config = agentConfig(items)
  return config && configFingerprint(config)
}

/** The fixture `full` as another caller's call of the same agent: every per-call value differs. */
function anotherCall(): ConversationCompleteEvent {
  const event = loadFixture('full')
  const replace = (text: string) =>
    text
      .replace('2025-06-09 08:30', '2025-06-11 17:05')
      .replace('+4915223344556', '+49 30 9876 5432')
      .replace('first_name: Hugo', 'first_name: Anna')
      .replaceAll('HI7730145', 'HI2209981')
      .replace('renewal_date: 2025-07-01', 'renewal_date: 2025-08-15')
      .replace('segment: car', 'segment: home')
      .replace('test_persona: price-sensitive', 'test_persona: hurried')
  for (const item of history(event)) {
    if (item.content) item.content = replace(item.content)
    if (item.instructions) item.instructions = replace(item.instructions)
  }
  return event
}

const systemPrompt = (event: ConversationCompleteEvent) => history(event)[0]!.content!

describe('agentConfig and configFingerprint', () => {
  it('reads the instructions, tools and handoff targets of the fixture, without its call context', () => {
    const config = agentConfig(history(loadFixture('full')))!
    expect(config.instructions).toMatch(/^You are the claims intake assistant of Harbor Insurance\./)
    expect(config.instructions).not.toContain('Call context')
    expect(config.instructions).not.toContain('+4915223344556')
    expect(config.instructions).not.toContain('Hugo')
    expect(config.instructions).toContain('excess of 300 euros')
    expect(config.updateInstructions).toEqual([
      'The caller is verified as the policy holder of {id}. You may now discuss the renewal offer.',
      'You are the renewals advisor of Harbor Insurance. Explain the new premium, the changes in cover and the deadline. Offer the annual payment discount of three percent. Never pressure the caller.',
    ])
    expect(config.tools).toEqual(['apply_discount', 'quote_renewal'])
    expect(config.handoffTargets).toEqual(['25879895-69ab-4bf5-bd59-70c66698c5ab'])
  })

  it('gives two calls of the same agent with different callers the same fingerprint', () => {
    const first = loadFixture('full')
    const second = anotherCall()
    expect(systemPrompt(second)).not.toEqual(systemPrompt(first))
    expect(fingerprintOf(history(second))).toEqual(fingerprintOf(history(first)))
  })

  it('makes a new version of a changed instruction sentence, an added tool or another handoff target', () => {
    const base = fingerprintOf(history(loadFixture('full')))
    const sentence = loadFixture('full')
    history(sentence)[0]!.content = systemPrompt(sentence).replace(
      'Speak calmly and use short sentences.',
      'Speak calmly and use very short sentences.',
    )
    const tool = loadFixture('full')
    history(tool)[7]!.tools_added = ['quote_renewal', 'send_photo_link']
    const fact = loadFixture('full')
    history(fact)[0]!.content = systemPrompt(fact).replace('excess of 300 euros', 'excess of 350 euros')
    const target = loadFixture('full')
    history(target)[20]!.handoff_to_agent_id = '0b7d0a61-1a4f-4a43-9f3b-6f3a3b0b8b11'
    const update = loadFixture('full')
    history(update)[21]!.instructions = `${history(update)[21]!.instructions} Mention the rental car.`
    const fingerprints = [sentence, tool, fact, target, update].map((event) => fingerprintOf(history(event)))
    expect(new Set([base, ...fingerprints]).size).toBe(6)
  })

  it('keeps the version when only spacing, line breaks, tool order or duplicates differ', () => {
    const base = fingerprintOf(history(loadFixture('full')))
    const event = loadFixture('full')
    const items = history(event)
    items[0]!.content = `  ${systemPrompt(event).replaceAll('. ', '.   ').replace('\n\n# Facts', '\n\n\n#  Facts')}\n\n`
    items[0]!.content = items[0]!.content.replace('Then ask what happened,', 'Then ask what happened,\n')
    items[21]!.tools_added = ['apply_discount', ' quote_renewal', 'apply_discount']
    items[7]!.tools_added = ['quote_renewal', 'quote_renewal']
    expect(fingerprintOf(items)).toEqual(base)
  })

  it('leaves out the handoff instructions, written for the one call', () => {
    const event = loadFixture('full')
    history(event)[20]!.instructions = 'Take over. The caller is angry about the price of 700 EUR.'
    expect(fingerprintOf(history(event))).toEqual(fingerprintOf(history(loadFixture('full'))))
  })

  it('fingerprints what there is without a System message, and nothing without any configuration', () => {
    const items = history(loadFixture('full')).slice(1)
    const config = agentConfig(items)!
    expect(config.instructions).toBe('')
    expect(config.tools).toEqual(['apply_discount', 'quote_renewal'])
    expect(fingerprintOf(items)).not.toEqual(fingerprintOf(history(loadFixture('full'))))
    const talk: HistoryItem[] = [
      { role: 'User', kind: 'Message', content: 'Hello?' },
      { role: 'Assistant', kind: 'Message', content: 'Hello, how can I help?' },
    ]
    expect(agentConfig(talk)).toBeNull()
    expect(agentConfig([{ role: 'System', kind: 'Message', content: ' \n ' }])).toBeNull()
  })

  it('gives every generated conversation of one agent without updates or handoffs the same fingerprint', () => {
    const events = generateConversations({ count: 300, seed: 32, historyItems: 12 })
    const byAgent = new Map<string, Set<string | null>>()
    for (const event of events) {
      const items = history(event)
      if (items.some((item) => item.kind === 'AgentConfigUpdate' || item.kind === 'AgentHandoff')) continue
      if (!items.some((item) => item.role === 'System')) continue
      const agent = event.data.agent_id!
      byAgent.set(agent, (byAgent.get(agent) ?? new Set()).add(fingerprintOf(items)))
    }
    expect(byAgent.size).toBeGreaterThan(1)
    for (const [agent, fingerprints] of byAgent) expect(fingerprints.size, agent).toBe(1)
    // Not one fingerprint for everything: the agents' domains have prompts of their own.
    expect(new Set([...byAgent.values()].flatMap((fingerprints) => [...fingerprints])).size).toBeGreaterThan(
      1,
    )
  })
})

describe('normalisedInstructions', () => {
  it('drops a call-context section up to the next heading of its level, and nothing after it', () => {
    const text = [
      'You are a booking assistant.',
      '## Call context',
      'Channel: inbound phone call',
      'Caller number: +33 6 12 34 56 78',
      '### Notes',
      'Called twice before.',
      '## Rules',
      'Never book on Sundays.',
    ].join('\n')
    expect(normalisedInstructions(text)).toBe(
      'You are a booking assistant.\n## Rules\nNever book on Sundays.',
    )
  })

  it('keeps the name of a variable and drops its value', () => {
    expect(normalisedInstructions('Variable first_name: Hugo\n- Variable plan.tier: gold')).toBe(
      'Variable first_name:\n- Variable plan.tier:',
    )
  })

  it('masks dates, times, phone numbers, e-mail addresses, UUIDs and identifiers, and keeps plain numbers', () => {
    expect(
      normalisedInstructions(
        'On 2025-06-09T08:30:00Z (9 June 2025, June 9, 2025, 09.06.2025 at 8:30 pm) call +49 152 2334 4556 ' +
          'or 030/1234567, write to hugo.weber@example.com, case 6f1c2a9e-0b4d-4f7e-9a53-2c8e1d7b4a10, ' +
          'policy HI7730145. Excess of 300 euros, towing up to 150 km, hotline weekdays 8-20.',
      ),
    ).toBe(
      'On {date} ({date}, {date}, {date} at {time}) call {phone} or {phone}, write to {email}, case {id}, ' +
        'policy {id}. Excess of 300 euros, towing up to 150 km, hotline weekdays 8-20.',
    )
  })
})
