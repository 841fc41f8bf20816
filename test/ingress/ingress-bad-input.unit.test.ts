import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { topics } from '../../core/kafka/topics.ts'
import { piiRedactions } from '../../core/privacy/pii/pii-settings.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { buildStandInIngress, testSecrets } from '../support/ingress-stand-in.ts'

// Broken and hostile bodies, from a holder of a valid token: each gets its documented status
// and answer shape (400 with details; 202 quarantined or accepted), nothing 5xx, nothing
// published for a 400, and no prototype polluted. (Tokens, content types and sizes: their own files.)
const [valid] = generateConversations({ count: 1, seed: 21, historyItems: 6 })
const sessionId = valid!.data.session_id
const json = (value: unknown) => JSON.stringify(value)
const withData = (data: Record<string, unknown>) =>
  json({ event: 'ConversationComplete', data: { session_id: sessionId, ...data } })
const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

interface Case {
  name: string
  body: string | Buffer
  status: 400 | 202
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
  // Shape attacks
  { name: '10,000-deep nesting', body: deep(10_000), status: 400 },
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

describe('ingress bad input (inject, stand-in publisher)', () => {
  const ingress = buildStandInIngress()
  afterAll(() => ingress.app.close())

  it.each(cases)('$name → $status', async (testCase) => {
    const before = ingress.publisher.published.length
    const response = await ingress.post(testCase.body)
    expect(response.statusCode).toBe(testCase.status)
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
    const body = response.json() as Record<string, unknown>
    const published = ingress.publisher.published.slice(before)
    if (testCase.status === 202) {
      expect(body).toEqual({ status: testCase.outcome, session_id: sessionId })
      expect(published.map(({ topic, message }) => ({ topic, key: message.key }))).toEqual([
        {
          topic: testCase.outcome === 'accepted' ? topics.conversationComplete : topics.quarantine,
          key: sessionId,
        },
      ])
      return
    }
    expect(published).toEqual([])
    expect(body.error).toBe('bad_request')
    expect(typeof body.message).toBe('string')
    expect(Array.isArray(body.details) && body.details.length > 0).toBe(true)
    for (const detail of body.details as Array<Record<string, unknown>>) {
      expect(typeof detail.path).toBe('string')
      expect(typeof detail.problem).toBe('string')
    }
  })

  it('answered no 5xx, counted the 400s as rejected, and polluted no prototype', async () => {
    const metrics = await ingress.metrics()
    expect(metrics).toMatch(
      /ingress_http_requests_total\{route="\/webhooks\/conversation-complete",method="POST",status="400"[^}]*\} [1-9]/,
    )
    expect(metrics).not.toMatch(
      /ingress_http_requests_total\{route="\/webhooks\/conversation-complete"[^}]*status="5\d\d"/,
    )
    const rejected = cases.filter((testCase) => testCase.status === 400).length
    expect(metrics).toContain(
      `ingress_events_total{outcome="rejected",reason="bad_request",service="ingress"} ${rejected}`,
    )
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined()
    expect(ingress.logs.join('')).not.toContain(testSecrets.prod)
  })
})

describe('ingress bad input under a PII policy', () => {
  const ingress = buildStandInIngress({
    piiRedaction: piiRedactions(
      { PII_POLICY: 'staging:phone=drop,content=drop,url_parameters=drop,test_reasons=drop' },
      ['prod', 'staging'],
    ),
  })
  afterAll(() => ingress.app.close())

  it('refuses (400) a body nested too deeply to serialise again, rather than storing it unredacted', async () => {
    const depth = 200_000
    const deepBody = `{"event":"ConversationComplete","data":{"session_id":"${randomUUID()}","from_number":"+1 415 555 0100","deep":${'['.repeat(depth)}${']'.repeat(depth)}}}`
    // Staging keeps unknown fields (prod would drop this one before anything is serialised again).
    const response = await ingress.post(deepBody, { token: testSecrets.staging })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({
      error: 'bad_request',
      message: 'body is nested too deeply to redact its PII',
      details: [{ path: '', problem: 'too deep' }],
    })
    expect(ingress.publisher.published).toEqual([])
  })
})
