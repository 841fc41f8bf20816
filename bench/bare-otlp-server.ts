import { gunzipSync } from 'node:zlib'
import Fastify from 'fastify'

// The limit the OTLP receiver is measured against: a bare Fastify route that only reads and
// inflates the same gzipped protobuf bodies and answers 200 (no auth, decoding, Avro or Kafka).
const app = Fastify({ bodyLimit: 16 * 1024 * 1024 })
app.addContentTypeParser('application/x-protobuf', { parseAs: 'buffer' }, (_request, body, done) =>
  done(null, gunzipSync(body as Buffer)),
)
app.post('/v1/traces', async (_request, reply) =>
  reply.code(200).header('content-type', 'application/x-protobuf').send(Buffer.alloc(0)),
)
app.get('/healthz', async () => ({ status: 'ok' }))
const url = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })
console.log(`listening ${url}`)
