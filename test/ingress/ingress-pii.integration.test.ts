import { randomInt, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse/clickhouse.ts'
import type { BatchProducer } from '../../core/kafka/kafka-producer.ts'
import type { KafkaSettings } from '../../core/kafka/kafka-settings.ts'
import type { ConsumedMessage } from '../../core/kafka/partition-batches.ts'
import { topics } from '../../core/kafka/topics.ts'
import { hashPhone } from '../../core/privacy/pii/pii-redaction.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { type RunningWorker, startWorker } from '../../services/worker/worker.ts'
import {
  countFinal,
  database,
  embeddedClickHouse,
  queryRows,
  tempDataDir,
} from '../support/embedded-clickhouse.ts'
import { postJson, startTestIngress, type TestIngress, testSecrets } from '../support/ingress-test-server.ts'
import { createTestTopic, endOffsets, readTopic, testKafka } from '../support/kafka-test-helpers.ts'
import { connectedProducer } from '../support/produce-events.ts'
import { waitFor } from '../support/wait-for.ts'
import { testLogger, workerConfig } from '../support/worker-settings.ts'

// PII removed at the edge never shows up anywhere after it: webhooks through a real ingress
// with per-source policies, the raw bytes of every topic message it wrote (events, quarantine,
// other kinds), its log lines, then those same messages through the worker into embedded
// ClickHouse (every table) and, for one made undecodable, into the DLQ. Each original string
// is searched for in all of them; what the policy leaves instead is checked to be there.
const hmacKey = `pii-test-key-${randomUUID()}`
const digits = (count: number) => Array.from({ length: count }, () => randomInt(10)).join('')
const phone = () => `+1 415 ${digits(3)} ${digits(4)}`
const compact = (number: string) => number.replace(/\s/g, '')

const prodFrom = phone()
const prodTo = phone()
const stagingFrom = phone()
const quarantineFrom = phone()
const otherFrom = phone()
const email = `pii.${digits(8)}@example.com`
const card = '4111 1111 1111 1111'
const audioUrl = `https://recordings.example.com/${randomUUID()}.ogg`
const toolArgument = `tool-argument-${randomUUID()}`
const toolOutput = `tool-output-${randomUUID()}`
const stagingContent = `staging transcript ${randomUUID()}`
const callback = `call me back at ${prodFrom}, mail ${email}, card ${card}`
// The other free text, the URL parameters and fields the schema does not know.
const errorPhone = phone()
const roomErrorPhone = phone()
const urlPhone = phone()
const instructionsPhone = phone()
const stagingInstructions = `staging instructions ${randomUUID()}`
const stagingUrlValue = `staging-url-${randomUUID()}`
const unknownData = `unknown-data-${randomUUID()}`
const unknownItem = `unknown-item-${randomUUID()}`
const unknownMetrics = `unknown-metrics-${randomUUID()}`
const unknownEnvelope = `unknown-envelope-${randomUUID()}`
const unknownOther = `unknown-other-${randomUUID()}`
const reasonPhone = phone()
const stagingReason = `staging judge reason ${randomUUID()}`
const prodPolicy =
  'phone=hmac,content=mask,audio_url=drop,tools=drop,errors=mask,url_parameters=mask,unknown_fields=drop,test_reasons=mask'
const stagingPolicy =
  'phone=drop,content=drop,audio_url=keep,tools=keep,errors=keep,url_parameters=drop,unknown_fields=keep,test_reasons=drop'

/** Every value a policy removed or changed, in each spelling it could travel in. */
const originals = [
  ...[
    prodFrom,
    prodTo,
    stagingFrom,
    quarantineFrom,
    otherFrom,
    errorPhone,
    roomErrorPhone,
    urlPhone,
    instructionsPhone,
    reasonPhone,
  ].flatMap((number) => [number, compact(number)]),
  email,
  card,
  compact(card),
  audioUrl,
  toolArgument,
  toolOutput,
  stagingContent,
  stagingInstructions,
  stagingUrlValue,
  unknownData,
  unknownItem,
  unknownMetrics,
  unknownEnvelope,
  unknownOther,
  stagingReason,
]

function conversation(seed: number, changes: Record<string, unknown>, history: object[]) {
  const [event] = generateConversations({ count: 1, seed, historyItems: 4 })
  return {
    ...event!,
    data: {
      ...event!.data,
      session_id: randomUUID(),
      ...changes,
      history: [...history, ...(event!.data.history ?? [])],
    },
  }
}

function expectNoOriginal(where: string, text: string) {
  for (const original of originals) expect(text.includes(original), `${where} holds ${original}`).toBe(false)
}

const bytesOf = (message: ConsumedMessage) =>
  Buffer.concat([
    message.key ?? Buffer.alloc(0),
    message.value ?? Buffer.alloc(0),
    ...Object.entries(message.headers ?? {}).map(([name, value]) => Buffer.from(`${name}:${String(value)}`)),
  ]).toString('latin1')

describe('PII controls at the ingress: a removed value reaches no topic, table, log or DLQ', () => {
  const data = tempDataDir('ingress-pii')
  let ingress: TestIngress
  let kafka: KafkaSettings
  let producer: BatchProducer
  let clickhouse: ClickHouseClient
  let worker: RunningWorker
  let workerTopic: string
  const prodEvent = {
    ...conversation(
      21,
      {
        from_number: prodFrom,
        to_number: prodTo,
        audio_url: audioUrl,
        error_message: `SIP busy calling ${errorPhone}`,
        room_metadata: { failed: false, error: `dial ${roomErrorPhone} failed` },
        url_parameters: { phone: urlPhone, lang: 'en' },
        customer_note: unknownData,
        test_eval_result: { success: false, reasons: [`did not read back ${reasonPhone}`] },
      },
      [
        {
          role: 'user',
          kind: 'message',
          content: callback,
          sentiment: unknownItem,
          metrics: { transcription_delay: 0.2, speaker_label: unknownMetrics },
        },
        { kind: 'agent_config_update', instructions: `The caller's number is ${instructionsPhone}` },
        {
          kind: 'function_call',
          tool_name: 'lookup_customer',
          tool_call_id: 'call-1',
          tool_arguments_json: JSON.stringify({ query: toolArgument }),
          tool_output: toolOutput,
        },
      ],
    ),
    trace_note: unknownEnvelope,
  }
  const stagingEvent = conversation(
    22,
    {
      from_number: stagingFrom,
      to_number: prodTo,
      url_parameters: { ref: stagingUrlValue },
      test_eval_result: { success: true, reasons: [stagingReason], completion_reason: 'StepsExhausted' },
    },
    [
      { role: 'user', kind: 'message', content: stagingContent },
      { kind: 'agent_handoff', handoff_to_agent_id: 'billing', instructions: stagingInstructions },
    ],
  )
  const misfit = conversation(
    23,
    { from_number: quarantineFrom, audio_url: audioUrl, duration_seconds: 'ninety' },
    [{ role: 'user', kind: 'message', content: callback }],
  )
  const other = {
    event: 'CallStarted',
    data: { session_id: randomUUID(), from_number: otherFrom, caller_name: unknownOther },
  }
  const messages = new Map<string, ConsumedMessage[]>()

  beforeAll(async () => {
    ingress = await startTestIngress({
      PII_POLICY:
        'prod:phone=hmac,content=mask,audio_url=drop,tools=drop,errors=mask,url_parameters=mask,unknown_fields=drop,test_reasons=mask;' +
        'staging:phone=drop,content=drop,url_parameters=drop,test_reasons=drop',
      PII_HMAC_KEY: hmacKey,
    })
    await ingress.waitUntilReady()
    kafka = testKafka()
    const written = [topics.conversationComplete, topics.quarantine, topics.otherEvents]
    const starts = await Promise.all(written.map((topic) => endOffsets(kafka, topic)))
    const posts: Array<[unknown, string]> = [
      [prodEvent, testSecrets.prod],
      [stagingEvent, testSecrets.staging],
      [misfit, testSecrets.prod],
      [other, testSecrets.prod],
    ]
    for (const [body, token] of posts)
      expect((await postJson(ingress.webhookUrl(token), body)).status).toBe(202)
    // Other tests may write to the contract topics at the same time: keep only our sessions' messages.
    const ours = new Set<string>(
      [prodEvent, stagingEvent, misfit, other].map((event) => event.data.session_id),
    )
    for (const [index, topic] of written.entries()) {
      const reader = await readTopic(kafka, topic, starts[index])
      try {
        const expected = topic === topics.conversationComplete ? 2 : 1
        const mine = (received: ConsumedMessage[]) =>
          received.filter((m) => ours.has(m.key?.toString() ?? ''))
        messages.set(topic, mine(await reader.waitFor((received) => mine(received).length >= expected)))
      } finally {
        await reader.stop()
      }
    }

    // The ingress's own event bytes, through the worker: one as sent, one cut short (undecodable: DLQ).
    workerTopic = await createTestTopic(kafka, 'ingress-pii', 1)
    producer = await connectedProducer(kafka)
    const events = messages.get(topics.conversationComplete)!
    const prodBytes = events.find((m) => m.key!.toString() === prodEvent.data.session_id)!.value!
    await producer.sendBatch([
      {
        topic: workerTopic,
        messages: [
          ...events.map((message) => ({ key: message.key, value: message.value })),
          { key: 'cut-short', value: prodBytes.subarray(0, prodBytes.length - 2) },
        ],
      },
    ])
    clickhouse = embeddedClickHouse(data.dir)
    worker = await startWorker(workerConfig(workerTopic, data.dir), testLogger(), { clickhouse })
    await waitFor(
      () => countFinal(clickhouse, 'conversations'),
      (n) => n >= 2,
      180_000,
      'conversations',
    )
  })

  afterAll(async () => {
    await worker?.stop()
    await producer?.disconnect()
    await clickhouse?.close()
    await ingress?.close()
    data.remove()
  })

  it('writes no removed value to the event topic, and records the policy in a header', () => {
    const events = messages.get(topics.conversationComplete)!
    expect(events).toHaveLength(2)
    for (const message of events) expectNoOriginal(`event ${message.key}`, bytesOf(message))
    const prod = events.find((m) => m.key!.toString() === prodEvent.data.session_id)!
    const staging = events.find((m) => m.key!.toString() === stagingEvent.data.session_id)!
    expect(String(prod.headers!['va-pii-policy'])).toBe(prodPolicy)
    expect(String(staging.headers!['va-pii-policy'])).toBe(stagingPolicy)
    // What the policy leaves instead is there: the hash (joins still work) and the masked line.
    const prodText = bytesOf(prod)
    expect(prodText).toContain(hashPhone(prodFrom, hmacKey))
    expect(prodText).toContain('call me back at +# ### ### ####, mail [email], card [card]')
    expect(prodText).toContain('lookup_customer')
    // Masked, not dropped: the error is still an error; URL parameter keys stay.
    expect(prodText).toContain('SIP busy calling +# ### ### ####')
    expect(prodText).toContain('dial +# ### ### #### failed')
    expect(prodText).toContain("The caller's number is +# ### ### ####")
    expect(prodText).toContain('did not read back +# ### ### ####')
    expect(prodText).toContain('lang')
  })

  it('stores quarantined misfits and other event kinds redacted too', () => {
    const [quarantined] = messages.get(topics.quarantine)!
    const [otherKind] = messages.get(topics.otherEvents)!
    for (const message of [quarantined!, otherKind!]) expectNoOriginal(`raw ${message.key}`, bytesOf(message))
    const body = JSON.parse(quarantined!.value!.toString())
    expect(body.data.from_number).toBe(hashPhone(quarantineFrom, hmacKey))
    expect(body.data.duration_seconds).toBe('ninety')
    expect(body.data).not.toHaveProperty('audio_url')
    expect(String(quarantined!.headers!['va-pii-policy'])).toBe(prodPolicy)
    expect(JSON.parse(otherKind!.value!.toString()).data.from_number).toBe(hashPhone(otherFrom, hmacKey))
  })

  it("logs each source's policy at start, and no removed value nor the HMAC key", () => {
    const log = ingress.logs.join('')
    expect(log).toContain('quarantined')
    // The policies are logged at start (what each source removes), the key never.
    expect(log).toContain(`"prod":"${prodPolicy}"`)
    expectNoOriginal('the ingress log', log)
    expect(log.includes(hmacKey)).toBe(false)
  })

  it('stores no removed value in any ClickHouse table, the hash where the number was', async () => {
    const tables = await queryRows<{ name: string }>(
      clickhouse,
      `SELECT name FROM system.tables WHERE database = '${database}' AND engine NOT LIKE '%View%'`,
    )
    expect(tables.length).toBeGreaterThan(3)
    let all = ''
    for (const { name } of tables) {
      const rows = await queryRows(clickhouse, `SELECT * FROM ${database}.\`${name}\``)
      const text = JSON.stringify(rows)
      expectNoOriginal(`table ${name}`, text)
      all += text
    }
    expect(all).toContain(hashPhone(prodFrom, hmacKey))
    expect(all).toContain(prodEvent.data.session_id)
    expect(all).toContain('SIP busy calling +# ### ### ####')
    // The judge's verdict stays where its reasons were masked (prod) or dropped (staging).
    const verdicts = await queryRows<{ session_id: string; test_success: boolean; test_reasons: string[] }>(
      clickhouse,
      `SELECT session_id, test_success, test_reasons FROM ${database}.test_results FINAL ORDER BY test_success`,
    )
    expect(verdicts).toEqual([
      {
        session_id: prodEvent.data.session_id,
        test_success: false,
        test_reasons: ['did not read back +# ### ### ####'],
      },
      { session_id: stagingEvent.data.session_id, test_success: true, test_reasons: [] },
    ])
  })

  it('dead-letters only the redacted bytes', async () => {
    const reader = await readTopic(kafka, `${workerTopic}.dlq`)
    try {
      const [dead] = await reader.waitFor((received) => received.length >= 1, 60_000)
      const text = bytesOf(dead!)
      expectNoOriginal('the DLQ', text)
      expect(text).toContain(hashPhone(prodFrom, hmacKey))
    } finally {
      await reader.stop()
    }
  })
})
