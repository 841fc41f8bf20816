import Fastify from 'fastify'

// The limit the ingress is measured against: a bare Fastify route that only parses the body.
const app = Fastify({ bodyLimit: 16 * 1024 * 1024 })
app.post('/webhooks/conversation-complete', async (request, reply) => {
  const body = request.body as { data?: { session_id?: string } }
  return reply.code(202).send({ status: 'accepted', session_id: body.data?.session_id })
})
app.get('/healthz', async () => ({ status: 'ok' }))
const url = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })
console.log(`listening ${url}`)
