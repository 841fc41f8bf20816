import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureTopics, withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import { topics } from '../../core/kafka/topics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { postJson, startTestIngress, type TestIngress, testSecrets } from '../support/ingress-test-server.ts'
import { testKafka } from '../support/kafka-test-helpers.ts'

// Large and deeply nested deliveries against a real ingress (real Kafka behind it): each is
// answered 202 once Kafka has it, nothing 5xx while the dependencies are up, and the process stays alive.
const bodyLimit = 1024 * 1024
const [valid] = generateConversations({ count: 1, seed: 21, historyItems: 6 })
const sessionId = valid!.data.session_id
/** A ConversationComplete of our session with more fields (JSON text) in its data. */
const conversationWith = (fields: string) =>
  `{"event":"ConversationComplete","data":{"session_id":"${sessionId}",${fields}}}`

// The HTTP contract of every other bad input (tokens, content types, sizes, broken JSON, misfits)
// is tested without Kafka: ingress-{auth,body-limits,bad-input}.unit.test.ts. These are the
// cases whose 202 says that real Kafka took what the ingress made of them.
const cases: Array<{ name: string; body: string; outcome: 'accepted' | 'quarantined' }> = [
  {
    name: 'a huge string within the limit',
    body: conversationWith(`"history":[{"content":"${'é'.repeat(200_000)}"}]`),
    outcome: 'accepted',
  },
  {
    name: '10,000-deep nesting inside data (kept, quarantined)',
    body: conversationWith(`"x":${'['.repeat(10_000)}${']'.repeat(10_000)}`),
    outcome: 'quarantined',
  },
]

describe('ingress bad-input suite', () => {
  let ingress: TestIngress
  beforeAll(async () => {
    // The contract topics as the product makes them (default limit) before this ingress, whose
    // small body limit would otherwise create them smaller for every later test and run.
    await withKafkaAdmin(testKafka(), (admin) =>
      ensureTopics(
        admin,
        Object.values(topics).map((topic) => ({ topic })),
      ),
    )
    ingress = await startTestIngress({ INGRESS_BODY_LIMIT_BYTES: String(bodyLimit) })
    await ingress.waitUntilReady()
  })
  afterAll(async () => {
    await ingress?.close()
  })

  it.each(cases)('$name → 202 $outcome', async (testCase) => {
    const response = await postJson(ingress.webhookUrl(), testCase.body)
    expect(response.status).toBe(202)
    expect(await response.json()).toEqual({ status: testCase.outcome, session_id: sessionId })
  })

  it('is still alive and healthy, answered no 5xx, and logged no secret', async () => {
    expect((await fetch(`${ingress.url}/healthz`)).status).toBe(200)
    const metrics = await (await fetch(`${ingress.url}/metrics`)).text()
    expect(metrics).toMatch(
      /ingress_http_requests_total\{route="\/webhooks\/conversation-complete"[^}]*status="202"/,
    )
    expect(metrics).not.toMatch(
      /ingress_http_requests_total\{route="\/webhooks\/conversation-complete"[^}]*status="5\d\d"/,
    )
    expect(ingress.logs.join('')).not.toContain(testSecrets.prod)
  })
})
