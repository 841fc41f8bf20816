import { afterAll, describe, expect, it } from 'vitest'
import { topics } from '../../core/kafka/topics.ts'
import { generateConversations } from '../../generator/conversation-generator.ts'
import {
  buildStandInIngress,
  decodePublished,
  standInBodyLimitBytes,
  testSecrets,
} from '../support/ingress-stand-in.ts'

// Who may post: a token of WEBHOOK_SECRETS in ?token= or an Authorization: Bearer header, else
// 401 in the one error shape, before the body is read, with nothing published. The source of
// the secret that matched travels with the event.
const [valid] = generateConversations({ count: 1, seed: 21, historyItems: 6 })
const body = JSON.stringify(valid)
const unauthorized = {
  error: 'unauthorized',
  message: 'missing or wrong webhook token (?token=... or Authorization: Bearer ...)',
}

const refused: Array<{ name: string; token: string | null; authorization?: string; body?: string }> = [
  { name: 'no token', token: null },
  { name: 'a wrong token', token: 'wrong-secret-0000000000' },
  { name: 'an empty token', token: '' },
  { name: 'a token one character short', token: testSecrets.prod.slice(0, -1) },
  { name: 'a token one character long', token: `${testSecrets.prod}x` },
  { name: 'a wrong Bearer token', token: null, authorization: 'Bearer nope-0000000000000' },
  {
    name: 'Basic auth',
    token: null,
    authorization: `Basic ${Buffer.from(`u:${testSecrets.prod}`).toString('base64')}`,
  },
  { name: 'a secret without "Bearer "', token: null, authorization: testSecrets.prod },
  {
    name: 'a wrong query token beside a right Bearer (the query decides)',
    token: 'wrong-secret-0000000000',
    authorization: `Bearer ${testSecrets.prod}`,
  },
  { name: 'no token and a garbage body', token: null, body: '{{{' },
  {
    name: 'no token and a body over the limit (refused before it is read)',
    token: null,
    body: 'x'.repeat(standInBodyLimitBytes + 10),
  },
]

describe('ingress webhook authentication (inject, stand-in publisher)', () => {
  const ingress = buildStandInIngress()
  afterAll(() => ingress.app.close())

  it.each(refused)('$name → 401', async (testCase) => {
    const response = await ingress.post(testCase.body ?? body, {
      token: testCase.token,
      ...(testCase.authorization === undefined ? {} : { authorization: testCase.authorization }),
    })
    expect(response.statusCode).toBe(401)
    expect(response.json()).toEqual(unauthorized)
    expect(ingress.publisher.published).toEqual([])
  })

  it('names the source of the secret that matched, from the query or a Bearer header', async () => {
    const fromQuery = await ingress.post(body)
    const fromBearer = await ingress.post(body, {
      token: null,
      authorization: `Bearer ${testSecrets.staging}`,
    })
    for (const response of [fromQuery, fromBearer]) {
      expect(response.statusCode).toBe(202)
      expect(response.json()).toEqual({ status: 'accepted', session_id: valid!.data.session_id })
    }
    const published = ingress.publisher.published
    expect(published.map(({ topic }) => topic)).toEqual([
      topics.conversationComplete,
      topics.conversationComplete,
    ])
    const sources = await Promise.all(
      published.map(async ({ message }) => (await decodePublished(message)).ingest.source),
    )
    expect(sources).toEqual(['prod', 'staging'])
  })

  it('counts the refusals as rejected, unauthorized, and logs no secret', async () => {
    expect(await ingress.metrics()).toContain(
      `ingress_events_total{outcome="rejected",reason="unauthorized",service="ingress"} ${refused.length}`,
    )
    const log = ingress.logs.join('')
    expect(log).toContain('"status":401')
    expect(log).not.toContain(testSecrets.prod)
    expect(log).not.toContain(testSecrets.staging)
  })
})
