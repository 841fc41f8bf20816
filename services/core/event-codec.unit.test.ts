import { createServer, type Server, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSchemaRegistry } from './event-codec.ts'

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
