import { randomUUID } from 'node:crypto'
import Fastify from 'fastify'
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose'

// A test-only stand-in for the platform API (spec §4.2, §5): it trusts a Bearer JWT only after
// checking its signature against Keycloak's JWKS and its `iss`, `aud` and `exp`, like the real
// API; it serves GET /api/Users/me and POST /api/Webhooks, records what it was sent, and can be
// told to refuse the next requests with 401 (a token the platform no longer accepts).

export type RecordedRequest = { method: string; path: string; token?: string; status: number; body?: unknown }

export type PlatformApiStandIn = {
  url: string
  requests: RecordedRequest[]
  rejectNext(count: number): void
  close(): Promise<void>
}

export async function startPlatformApiStandIn(options: { issuer: string; audience: string }) {
  const jwks = createRemoteJWKSet(new URL(`${options.issuer}/protocol/openid-connect/certs`))
  const requests: RecordedRequest[] = []
  let rejections = 0
  const app = Fastify({ logger: false })

  const challenge = (description: string) =>
    `Bearer realm="voice-agent-api", error="invalid_token", error_description="${description}"`

  app.addHook('preHandler', async (request, reply) => {
    const header = request.headers.authorization ?? ''
    const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined
    const record: RecordedRequest = {
      method: request.method,
      path: request.url,
      status: 0,
      body: request.body,
    }
    if (token) record.token = token
    requests.push(record)
    const refuse = (description: string) => {
      record.status = 401
      return reply
        .code(401)
        .header('www-authenticate', challenge(description))
        .send({ error: 'invalid_token', error_description: description })
    }
    if (!token) return refuse('missing Bearer token')
    if (rejections > 0) {
      rejections--
      return refuse('token no longer accepted')
    }
    try {
      const { payload } = await jwtVerify(token, jwks, { issuer: options.issuer, audience: options.audience })
      request.claims = payload
    } catch (error) {
      return refuse((error as Error).message)
    }
  })
  app.addHook('onSend', async (request, reply) => {
    const record = requests.findLast((entry) => entry.path === request.url && entry.status === 0)
    if (record) record.status = reply.statusCode
  })

  app.get('/api/Users/me', async (request) => {
    const claims = request.claims!
    return {
      id: claims.sub,
      userName: claims.preferred_username,
      email: claims.email,
      name: claims.name,
    }
  })

  app.post('/api/Webhooks', async (request, reply) => {
    const body = request.body as { url?: unknown } | undefined
    if (!body || typeof body.url !== 'string' || !/^https?:\/\//.test(body.url)) {
      return reply
        .code(400)
        .send({ error: 'invalid_request', error_description: 'url must be an http(s) URL' })
    }
    return reply.code(201).send({ id: randomUUID() })
  })

  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  return {
    url,
    requests,
    rejectNext(count: number) {
      rejections = count
    },
    close: () => app.close(),
  } satisfies PlatformApiStandIn
}

declare module 'fastify' {
  interface FastifyRequest {
    claims?: JWTPayload
  }
}
