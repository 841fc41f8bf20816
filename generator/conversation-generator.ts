import type {
  ConversationCompleteEvent,
  ConversationData,
} from '../core/event/conversation-complete.types.ts'
import { agentVersionAt, type VersionChange } from './agent-versions.ts'
import { buildHistory } from './conversation-history.ts'
import { fullName } from './conversation-scripts.ts'
import { checkCount, checkRate, round } from './option-checks.ts'
import type { Random } from './random.ts'
import { createRandom } from './random.ts'
import type { SyntheticCampaign, SyntheticTest, SyntheticWorld, WorldOptions } from './synthetic-world.ts'
import { createWorld } from './synthetic-world.ts'
import type { TimestampStyle } from './timestamp-format.ts'
import { formatTimestamp } from './timestamp-format.ts'

// Synthetic ConversationComplete payloads for tests, the demo and benchmarks, as the platform
// would POST them. Pure and deterministic: the same seed and options give the same payloads.
export type { ConversationCompleteEvent, SyntheticWorld, WorldOptions }
export { createWorld }

export interface ConversationOptions {
  /** History length of a conversation whose room did not fail (default 40). */
  historyItems?: number
  /** Share of conversations whose room failed; those have 0 to 3 history items (default 0.03). */
  failedRoomRate?: number
  /** Share of automated test conversations (default 0.15). */
  testRunRate?: number
  /** Share of outbound campaign calls (default 0.35). */
  campaignRate?: number
  /** Share of web calls; the rest are inbound phone calls (default 0.2). */
  webCallRate?: number
  /** Chance that the agent calls a tool before answering a user turn (default 0.25). */
  toolCallRate?: number
  /** Chance that a tool answers with an error (default 0.08). */
  toolErrorRate?: number
  /** Share of conversations with an agent handoff (default 0.15). */
  handoffRate?: number
  /** Chance that the user interrupts an agent's turn (default 0.08). */
  interruptionRate?: number
  /** Share of payloads that send absent fields as explicit nulls, as some serializers do (default 0.2). */
  explicitNullRate?: number
  /** Share of payloads carrying fields the schema does not know, at every level (default 0). */
  unknownFieldRate?: number
  /** When the conversation starts (epoch ms); default somewhere in the day after 2025-06-02T06:00Z. */
  startAt?: number
  /** Agent changes with a chosen effect (agent-versions.ts); none by default. */
  versionChanges?: readonly VersionChange[]
}

export interface GenerateOptions extends WorldOptions, ConversationOptions {
  count: number
  seed: number
  /** Earliest start (ISO 8601 or epoch ms; default 2025-06-02T06:00:00Z). */
  from?: string | number
  /** The starts are spread evenly over this many hours (default 24). */
  spanHours?: number
  /** The agents, campaigns and tests to use (default: drawn from the seed), to continue a data set over several stretches of time. */
  world?: SyntheticWorld
}

type Settings = Required<Omit<ConversationOptions, 'startAt' | 'versionChanges'>>
type Kind = 'campaign' | 'inbound' | 'web' | 'test'

const defaultFrom = Date.parse('2025-06-02T06:00:00Z')

function phoneNumber(rng: Random): string {
  return rng.chance(0.7) ? `+4915${rng.digits(9)}` : `+447${rng.digits(9)}`
}

function callSid(rng: Random, provider: string): string {
  if (provider === 'Twilio') return `CA${rng.hex(32)}`
  if (provider === 'Telnyx') return `v3:${rng.alphanumeric(22)}`
  return rng.uuid()
}

function audioUrl(rng: Random, sessionId: string, signedAt: number): string {
  const stamp = new Date(signedAt).toISOString().replace(/[-:]/g, '').slice(0, 15)
  return (
    `https://recordings.voice-platform.example/rooms/${sessionId}/composite.ogg?X-Amz-Algorithm=AWS4-HMAC-SHA256` +
    `&X-Amz-Credential=EXAMPLEKEYID%2F${stamp.slice(0, 8)}%2Feu-central-1%2Fs3%2Faws4_request&X-Amz-Date=${stamp}Z` +
    `&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature=${rng.hex(64)}`
  )
}

const testReasons = {
  passed: [
    'The agent verified the caller before sharing personal data.',
    'The agent completed the booking and confirmed date and time.',
    'The agent stayed polite and within its instructions.',
  ],
  failed: [
    'The agent did not read back the identifier.',
    'The agent promised something outside its instructions.',
    'The agent ended the call before the goal was reached.',
  ],
}

function testFields(
  rng: Random,
  world: SyntheticWorld,
  test: SyntheticTest | undefined,
): Partial<ConversationData> {
  if (!test)
    return { test_run_id: undefined, test_id: undefined, test_status: undefined, test_eval_result: undefined }
  const testStatus = rng.weighted([
    ['Completed', 0.85],
    ['Failed', 0.1],
    ['Initial', 0.05],
  ] as const)
  const success = testStatus === 'Completed' && rng.chance(0.8)
  const pool = success ? testReasons.passed : testReasons.failed
  const first = rng.int(0, pool.length - 1)
  return {
    test_run_id: rng.pick(world.testRunIds),
    test_id: test.id,
    test_status: testStatus,
    test_eval_result:
      testStatus === 'Initial'
        ? undefined
        : {
            success,
            reasons: pool.slice(first, first + rng.int(1, 2)),
            completion_reason: rng.weighted([
              ['StepsExhausted', 0.5],
              ['GoalReached', 0.35],
              ['AgentEndedCall', 0.1],
              ['Timeout', 0.05],
            ] as const),
          },
  }
}

const roomFailures = [
  ['agent dispatch timeout', 'The agent did not join the room within 30 seconds.'],
  ['sip: 486 Busy Here', 'The callee was busy.'],
  ['sip: 480 Temporarily Unavailable', 'The call could not be connected.'],
  ['media server connection lost', 'The room closed unexpectedly.'],
] as const

function withDefaults(options: ConversationOptions): Settings {
  const rates = {
    failedRoomRate: options.failedRoomRate ?? 0.03,
    testRunRate: options.testRunRate ?? 0.15,
    campaignRate: options.campaignRate ?? 0.35,
    webCallRate: options.webCallRate ?? 0.2,
    toolCallRate: options.toolCallRate ?? 0.25,
    toolErrorRate: options.toolErrorRate ?? 0.08,
    handoffRate: options.handoffRate ?? 0.15,
    interruptionRate: options.interruptionRate ?? 0.08,
    explicitNullRate: options.explicitNullRate ?? 0.2,
    unknownFieldRate: options.unknownFieldRate ?? 0,
  }
  for (const [name, value] of Object.entries(rates)) checkRate(name, value)
  if (rates.testRunRate + rates.campaignRate + rates.webCallRate > 1)
    throw new RangeError('testRunRate + campaignRate + webCallRate must not exceed 1')
  return { historyItems: checkCount('historyItems', options.historyItems ?? 40), ...rates }
}

function addUnknownFields(rng: Random, event: ConversationCompleteEvent): void {
  const data = event.data
  event.webhook_id = rng.uuid()
  event.delivery_attempt = rng.int(1, 3)
  data.organization_id = rng.uuid()
  data.language = rng.pick(['de-DE', 'en-GB', 'fr-FR'])
  if (data.room_metadata) data.room_metadata.region = rng.pick(['eu-central', 'eu-west'])
  if (data.test_eval_result) data.test_eval_result.score = round(rng.float(0, 1), 2)
  for (const item of data.history ?? []) {
    item.participant_identity = item.role === 'User' ? `sip_${rng.digits(6)}` : 'agent'
    if (item.metrics) item.metrics.speech_id = `speech_${rng.hex(12)}`
  }
}

/** What the platform tells the agent about the call, appended to its prompt. */
function promptContext(
  kind: Kind,
  startAt: number,
  campaign: SyntheticCampaign | undefined,
  test: SyntheticTest | undefined,
  customerNumber: string | undefined,
  urlParameters: Record<string, string> | undefined,
): string {
  const channel = {
    campaign: `outbound phone call, campaign "${campaign?.name}"`,
    inbound: 'inbound phone call',
    web: 'web call from the website widget',
    test: `automated test "${test?.name}" with a simulated caller`,
  }[kind]
  const localTime = new Date(startAt + 2 * 3600_000).toISOString().slice(0, 16).replace('T', ' ')
  const lines = ['# Call context', `Channel: ${channel}`, `Local time: ${localTime} (Europe/Berlin)`]
  if (customerNumber) lines.push(`Caller number: ${customerNumber}`)
  for (const [key, value] of Object.entries(urlParameters ?? {})) lines.push(`Variable ${key}: ${value}`)
  return lines.join('\n')
}

/** One conversation from the world (a default one drawn from rng when none is given). */
export function generateConversation(
  rng: Random,
  options: ConversationOptions & { world?: SyntheticWorld } = {},
): ConversationCompleteEvent {
  const settings = withDefaults(options)
  const world = options.world ?? createWorld(rng)
  const drawn = rng.weighted<Kind>([
    ['test', settings.testRunRate],
    ['campaign', settings.campaignRate],
    ['web', settings.webCallRate],
    ['inbound', Math.max(0, 1 - settings.testRunRate - settings.campaignRate - settings.webCallRate)],
  ])
  const campaign = drawn === 'campaign' && world.campaigns.length > 0 ? rng.pick(world.campaigns) : undefined
  const test = drawn === 'test' && world.tests.length > 0 ? rng.pick(world.tests) : undefined
  const kind: Kind = drawn === 'campaign' && !campaign ? 'inbound' : drawn === 'test' && !test ? 'web' : drawn
  const chosenAgent = campaign?.agent ?? test?.agent ?? rng.pick(world.agents)
  const phone = kind === 'campaign' || kind === 'inbound'
  const sessionId = rng.uuid()
  const startAt = options.startAt ?? defaultFrom + rng.float(0, 24 * 3600_000)
  const agent = agentVersionAt(
    chosenAgent,
    world.agents.indexOf(chosenAgent),
    startAt,
    options.versionChanges ?? [],
  )
  const failure = rng.chance(settings.failedRoomRate)
    ? rng.pick(roomFailures.filter(([error]) => phone || !error.startsWith('sip:')))
    : undefined
  const agentNeverJoined = failure?.[0] === 'agent dispatch timeout'
  const style: TimestampStyle = {
    offsetMinutes: rng.chance(0.4) ? 120 : 0,
    fractionDigits: rng.pick([3, 6, 7]),
  }
  const headerStyle: TimestampStyle = { ...style, fractionDigits: rng.pick([0, 3, 6, 7]) }
  const header = (epochMs: number) => formatTimestamp(epochMs, headerStyle)

  let urlParameters: Record<string, string> | undefined
  if (campaign) urlParameters = agent.domain.urlParameters(rng)
  else if (kind === 'web')
    urlParameters = {
      utm_source: rng.pick(['website', 'newsletter', 'google']),
      utm_campaign: rng.pick(['summer-2025', 'support-widget', 'brand']),
      widget_version: `2.${rng.int(3, 9)}.${rng.int(0, 20)}`,
      ...(rng.chance(0.5) ? { customer_name: fullName(rng) } : {}),
    }
  const customerNumber = phoneNumber(rng)
  const joinedAt = startAt + rng.logNormal(900, 0.4)
  const length = failure
    ? agentNeverJoined
      ? 0
      : Math.min(settings.historyItems, rng.int(1, 3))
    : settings.historyItems
  const history = buildHistory(
    rng,
    agent,
    style,
    joinedAt,
    { ...settings, length },
    promptContext(kind, startAt, campaign, test, phone ? customerNumber : undefined, urlParameters),
  )
  const endAt = (agentNeverJoined ? startAt + 30_000 : history.endedAt) + rng.float(400, 2000)

  const provider = rng.weighted([
    ['Twilio', 0.5],
    ['Telnyx', 0.3],
    ['Vonage', 0.2],
  ] as const)
  const platformNumber = campaign?.callerNumber ?? `+4930${rng.digits(7)}`
  const recorded = !failure && kind !== 'test'

  const data: ConversationData = {
    session_id: sessionId,
    agent_id: agent.id,
    agent_name: agent.name,
    audio_url: recorded ? audioUrl(rng, sessionId, endAt) : undefined,
    audio_url_expires_at: recorded ? header(endAt + 7 * 86_400_000) : undefined,
    created_at: header(startAt - rng.float(200, 3000)),
    start_time: header(startAt),
    agent_joined_at: agentNeverJoined ? undefined : header(joinedAt),
    duration_seconds: round((endAt - startAt) / 1000, 3),
    history: history.items,
    telecom_provider: phone ? provider : undefined,
    from_number: phone ? (campaign ? platformNumber : customerNumber) : undefined,
    to_number: phone ? (campaign ? customerNumber : platformNumber) : undefined,
    call_sid: phone ? callSid(rng, provider) : undefined,
    campaign_item_id: campaign ? rng.uuid() : undefined,
    campaign_id: campaign?.id,
    campaign_name: campaign?.name,
    url_parameters: urlParameters,
    ...testFields(rng, world, test),
    room_metadata: {
      failed: failure !== undefined,
      skipCompositeEgress: kind === 'test',
      ...(failure ? { error: failure[0] } : {}),
    },
    status: failure ? 'Failed' : rng.chance(0.9) ? 'Completed' : 'Pending',
    error_message: failure?.[1],
  }
  // Absent fields: left out, or sent as explicit nulls by serializers that write every property.
  const explicitNulls = rng.chance(settings.explicitNullRate)
  const ordered = Object.fromEntries(
    Object.entries(data).flatMap(([key, value]) =>
      value !== undefined ? [[key, value]] : explicitNulls ? [[key, null]] : [],
    ),
  ) as ConversationData
  const event: ConversationCompleteEvent = { event: 'ConversationComplete', data: ordered }
  if (rng.chance(settings.unknownFieldRate)) addUnknownFields(rng, event)
  return event
}

/** Conversations one at a time, for counts too large to hold (benchmarks, load generation). */
export function* conversationStream(options: GenerateOptions): Generator<ConversationCompleteEvent> {
  const count = checkCount('count', options.count)
  if (!Number.isFinite(options.seed))
    throw new RangeError(`seed must be a finite number, got ${options.seed}`)
  const from = typeof options.from === 'string' ? Date.parse(options.from) : (options.from ?? defaultFrom)
  if (Number.isNaN(from)) throw new RangeError(`from is not a date: ${options.from}`)
  const spanMs = (options.spanHours ?? 24) * 3600_000
  if (!(spanMs > 0)) throw new RangeError(`spanHours must be positive, got ${options.spanHours}`)
  const rng = createRandom(options.seed)
  const world = options.world ?? createWorld(rng, options)
  const slot = spanMs / Math.max(1, count)
  for (let index = 0; index < count; index++) {
    yield generateConversation(rng, { ...options, world, startAt: from + index * slot + rng.float(0, slot) })
  }
}

export function generateConversations(options: GenerateOptions): ConversationCompleteEvent[] {
  return Array.from(conversationStream(options))
}
