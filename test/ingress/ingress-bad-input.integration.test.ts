import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureTopics } from '../../services/core/kafka.ts'
import { topics } from '../../services/core/topics.ts'
import { generateConversations } from '../../services/synthetic/conversation-generator.ts'
import { startTestIngress, type TestIngress, testSecrets } from '../support/ingress-test-server.ts'
import { testKafka } from '../support/kafka-test-helpers.ts'

// Hostile and broken deliveries against a real ingress (real Kafka behind it): each gets its
// documented status, nothing 5xx while the dependencies are up, and the process stays alive.
const bodyLimit = 1024 * 1024
const [valid] = generateConversations({ count: 1, seed: 21, historyItems: 6 })
const sessionId = valid!.data.session_id
const json = (value: unknown) => JSON.stringify(value)
const withData = (data: Record<string, unknown>) =>
  json({ event: 'ConversationComplete', data: { session_id: sessionId, ...data } })
const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

interface Case {
  name: string
  body: string | Buffer | undefined
  status: number
  contentType?: string | null
  token?: string | null
  authorization?: string
  outcome?: 'accepted' | 'quarantined'
}

const cases: Case[] = [
  // Not JSON, or JSON that is not an object
  { name: 'truncated JSON', body: '{"event":"ConversationComplete","data":{', status: 400 },
  { name: 'trailing garbage', body: `${withData({})} trailing`, status: 400 },
  { name: 'single-quoted JSON', body: "{'event':'ConversationComplete'}", status: 400 },
  { name: 'NaN literal', body: withData({}).replace('}}', ',"duration_seconds":NaN}}'), status: 400 },
  { name: 'a JSON array', body: '[]', status: 400 },
  { name: 'an array of events', body: json([valid]), status: 400 },
  { name: 'a JSON string', body: '"ConversationComplete"', status: 400 },
  { name: 'a JSON number', body: '42', status: 400 },
  { name: 'JSON null', body: 'null', status: 400 },
  { name: 'JSON true', body: 'true', status: 400 },
  { name: 'an empty body', body: '', status: 400 },
  { name: 'a whitespace-only body', body: '   \n ', status: 400 },
  {
    name: 'invalid UTF-8',
    body: Buffer.concat([
      Buffer.from('{"event":"ConversationComplete","data":{"session_id":"'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"}}'),
    ]),
    status: 400,
  },
  // No usable data or session_id
  { name: 'an empty object', body: '{}', status: 400 },
  { name: 'data as a string', body: json({ event: 'ConversationComplete', data: 'x' }), status: 400 },
  { name: 'data as an array', body: json({ event: 'ConversationComplete', data: [] }), status: 400 },
  { name: 'data null', body: json({ event: 'ConversationComplete', data: null }), status: 400 },
  {
    name: 'no session_id',
    body: json({ event: 'ConversationComplete', data: { agent_name: 'a' } }),
    status: 400,
  },
  {
    name: 'numeric session_id',
    body: json({ event: 'ConversationComplete', data: { session_id: 42 } }),
    status: 400,
  },
  {
    name: 'null session_id',
    body: json({ event: 'ConversationComplete', data: { session_id: null } }),
    status: 400,
  },
  {
    name: 'empty session_id',
    body: json({ event: 'ConversationComplete', data: { session_id: ' ' } }),
    status: 400,
  },
  {
    name: 'object session_id',
    body: json({ event: 'ConversationComplete', data: { session_id: { id: 1 } } }),
    status: 400,
  },
  // Content types
  { name: 'text/plain', body: json(valid), contentType: 'text/plain', status: 415 },
  { name: 'application/xml', body: '<event/>', contentType: 'application/xml', status: 415 },
  { name: 'form data', body: 'a=b', contentType: 'application/x-www-form-urlencoded', status: 415 },
  { name: 'no content type', body: json(valid), contentType: null, status: 415 },
  {
    name: 'JSON with a charset',
    body: json(valid),
    contentType: 'application/json; charset=utf-8',
    status: 202,
    outcome: 'accepted',
  },
  {
    name: 'application/webhook+json',
    body: json(valid),
    contentType: 'application/webhook+json',
    status: 202,
    outcome: 'accepted',
  },
  // Tokens
  { name: 'no token', body: json(valid), token: null, status: 401 },
  { name: 'a wrong token', body: json(valid), token: 'wrong-secret-0000000000', status: 401 },
  { name: 'an empty token', body: json(valid), token: '', status: 401 },
  {
    name: 'a token one character short',
    body: json(valid),
    token: testSecrets.prod.slice(0, -1),
    status: 401,
  },
  {
    name: 'a wrong Bearer token',
    body: json(valid),
    token: null,
    authorization: 'Bearer nope-0000000000000',
    status: 401,
  },
  {
    name: 'Basic auth',
    body: json(valid),
    token: null,
    authorization: `Basic ${Buffer.from(`u:${testSecrets.prod}`).toString('base64')}`,
    status: 401,
  },
  { name: 'no token and a garbage body', body: '{{{', token: null, status: 401 },
  // Size and shape attacks
  { name: 'a body over the limit', body: withData({ content: 'x'.repeat(bodyLimit + 10) }), status: 413 },
  { name: '10,000-deep nesting', body: deep(10_000), status: 400 },
  {
    name: '10,000-deep nesting inside data (kept, quarantined)',
    body: withData({}).replace('}}', `,"x":${deep(10_000)}}}`),
    status: 202,
    outcome: 'quarantined',
  },
  {
    name: 'a __proto__ key',
    body: '{"__proto__":{"polluted":true},"event":"ConversationComplete","data":{}}',
    status: 400,
  },
  {
    name: 'a __proto__ key inside data',
    body: withData({}).replace('}}', ',"__proto__":{"isAdmin":true}}}'),
    status: 400,
  },
  {
    name: 'constructor.prototype',
    body: withData({}).replace('}}', ',"constructor":{"prototype":{"x":1}}}}'),
    status: 400,
  },
  // Fits badly: acknowledged and quarantined, never dropped or bounced
  {
    name: 'a string duration',
    body: withData({ duration_seconds: '90' }),
    status: 202,
    outcome: 'quarantined',
  },
  {
    name: 'history as an object',
    body: withData({ history: { 0: {} } }),
    status: 202,
    outcome: 'quarantined',
  },
  {
    name: 'a string latency metric',
    body: withData({ history: [{ metrics: { e2e_latency: '1.2' } }] }),
    status: 202,
    outcome: 'quarantined',
  },
  {
    name: 'a numeric url parameter',
    body: withData({ url_parameters: { utm: 5 } }),
    status: 202,
    outcome: 'quarantined',
  },
  {
    name: 'a string room failure flag',
    body: withData({ room_metadata: { failed: 'yes' } }),
    status: 202,
    outcome: 'quarantined',
  },
  {
    name: 'a date that is not a date',
    body: withData({ start_time: 'yesterday' }),
    status: 202,
    outcome: 'quarantined',
  },
  {
    name: 'a non-UUID agent id',
    body: withData({ agent_id: 'agent-7' }),
    status: 202,
    outcome: 'quarantined',
  },
  {
    name: 'no event field',
    body: json({ data: { session_id: sessionId } }),
    status: 202,
    outcome: 'quarantined',
  },
  // Valid, if unusual
  { name: 'a plain constructor key', body: withData({ constructor: 'x' }), status: 202, outcome: 'accepted' },
  {
    name: 'a huge string within the limit',
    body: withData({ history: [{ content: 'é'.repeat(200_000) }] }),
    status: 202,
    outcome: 'accepted',
  },
  {
    name: 'emoji and escapes',
    body: withData({ agent_name: '🤖 \\u00e9\\n"quoted"' }),
    status: 202,
    outcome: 'accepted',
  },
  {
    name: 'duplicate keys',
    body: withData({ agent_name: 'a' }).replace('"agent_name":"a"', '"agent_name":"a","agent_name":"b"'),
    status: 202,
    outcome: 'accepted',
  },
]

describe('ingress bad-input suite', () => {
  let ingress: TestIngress
  beforeAll(async () => {
    // The contract topics as the product makes them (default limit) before this ingress, whose
    // small body limit would otherwise create them smaller for every later test and run.
    const admin = testKafka().admin()
    await admin.connect()
    try {
      await ensureTopics(
        admin,
        Object.values(topics).map((topic) => ({ topic })),
      )
    } finally {
      await admin.disconnect()
    }
    ingress = await startTestIngress({ INGRESS_BODY_LIMIT_BYTES: String(bodyLimit) })
    await ingress.waitUntilReady()
  })
  afterAll(async () => {
    await ingress?.close()
  })

  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40)
  })

  it.each(cases)('$name → $status', async (testCase) => {
    const headers: Record<string, string> = {}
    if (testCase.contentType !== null) headers['content-type'] = testCase.contentType ?? 'application/json'
    if (testCase.authorization) headers.authorization = testCase.authorization
    const url =
      testCase.token === null
        ? `${ingress.url}/webhooks/conversation-complete`
        : ingress.webhookUrl(testCase.token ?? testSecrets.prod)
    const response = await fetch(url, { method: 'POST', headers, body: testCase.body })
    expect(response.status).toBe(testCase.status)
    const body = (await response.json()) as Record<string, unknown>
    if (testCase.status === 202) expect(body.status).toBe(testCase.outcome)
    else {
      expect(typeof body.error).toBe('string')
      expect(typeof body.message).toBe('string')
    }
    if (testCase.status === 400) {
      expect(body.error).toBe('bad_request')
      expect(Array.isArray(body.details) && body.details.length > 0).toBe(true)
      for (const detail of body.details as Array<Record<string, unknown>>) {
        expect(typeof detail.path).toBe('string')
        expect(typeof detail.problem).toBe('string')
      }
    }
  })

  it('is still alive and healthy, answered no 5xx, and polluted no prototype', async () => {
    expect((await fetch(`${ingress.url}/healthz`)).status).toBe(200)
    const metrics = await (await fetch(`${ingress.url}/metrics`)).text()
    expect(metrics).toMatch(
      /ingress_http_requests_total\{route="\/webhooks\/conversation-complete"[^}]*status="202"/,
    )
    expect(metrics).not.toMatch(
      /ingress_http_requests_total\{route="\/webhooks\/conversation-complete"[^}]*status="5\d\d"/,
    )
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined()
    expect(ingress.logs.join('')).not.toContain(testSecrets.prod)
  })
})
