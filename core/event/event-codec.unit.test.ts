import { createServer, type Server, type Socket } from 'node:net'
import avro from 'avsc'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { createSchemaRegistry, wireEncoder } from './event-codec.ts'
import { toAvroRecord } from './event-record.ts'
import { eventAvroSchema } from './event-schema.ts'

// A registry that accepts connections and never answers must fail the request (a network error
// the caller retries), not hold it forever.
describe('createSchemaRegistry against a registry that never answers', () => {
  let silent: Server
  let port = 0
  const accepted: Socket[] = []

  beforeAll(async () => {
    silent = createServer((socket) => void accepted.push(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const address = silent.address()
    port = typeof address === 'object' && address ? address.port : 0
  })
  afterAll(async () => {
    for (const socket of accepted) socket.destroy()
    await new Promise((resolve) => silent.close(resolve))
  })

  it('fails the request once its timeout has passed', async () => {
    const registry = createSchemaRegistry(`http://127.0.0.1:${port}/apis/ccompat/v7`, 200)
    await expect(registry.getSchema(1)).rejects.toThrow(/Timeout \(200ms\)/)
    expect(accepted.length).toBeGreaterThan(0)
  })
})

// The ingress's encoder writes the Confluent wire format itself (once, header in place): its
// bytes must be exactly what magic byte + schema id + avsc's own encoding give.
const type = avro.Type.forSchema(eventAvroSchema as avro.Schema)
const ingest = { source: 'prod', receivedAt: 1_764_000_000_123 }
const framed = (schemaId: number, body: Buffer) => {
  const header = Buffer.alloc(5)
  header.writeInt32BE(schemaId, 1)
  return Buffer.concat([header, body])
}

describe('wireEncoder', () => {
  it('writes magic byte, schema id and the Avro body, as the registry client does', () => {
    const encode = wireEncoder(4711, type)
    for (const event of generateConversations({ count: 40, seed: 5, unknownFieldRate: 0.5 })) {
      const record = toAvroRecord(event, ingest)
      expect(encode(record)).toEqual(framed(4711, type.toBuffer(record)))
    }
  })
  it('grows its scratch buffer for a record larger than it, and stays right afterwards', () => {
    const encode = wireEncoder(7, type)
    const [large] = generateConversations({ count: 1, seed: 6, historyItems: 600 })
    const [small] = generateConversations({ count: 1, seed: 8, historyItems: 2 })
    const largeRecord = toAvroRecord(large!, ingest)
    expect(type.toBuffer(largeRecord).length).toBeGreaterThan(64 * 1024)
    expect(encode(largeRecord)).toEqual(framed(7, type.toBuffer(largeRecord)))
    const smallRecord = toAvroRecord(small!, ingest)
    expect(encode(smallRecord)).toEqual(framed(7, type.toBuffer(smallRecord)))
  })
  it('refuses a record that does not fit the schema, as avsc does', () => {
    expect(() => wireEncoder(7, type)({ event: 3 })).toThrow()
  })
})
