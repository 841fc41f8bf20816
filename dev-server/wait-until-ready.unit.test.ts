import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { waitUntilReady } from './wait-until-ready.ts'

// A local HTTP server that answers /readyz 503 a few times, then 200: the wait ends only at the 200
// and says meanwhile what it waits for.
let server: Server | undefined
afterEach(() => server?.close())

function readyAfter(notReadyAnswers: number): Promise<{ url: string; asked: () => number }> {
  let asked = 0
  server = createServer((_request, response) => {
    asked++
    const ready = asked > notReadyAnswers
    response.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ status: ready ? 'ready' : 'not_ready' }))
  })
  return new Promise((resolve) =>
    server!.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/readyz`,
        asked: () => asked,
      }),
    ),
  )
}

describe('waitUntilReady', () => {
  it('returns only after /readyz answers 200, reporting the 503s on the way', async () => {
    const ingress = await readyAfter(3)
    const reasons: string[] = []
    await waitUntilReady(ingress.url, {
      pollMs: 5,
      reportEveryMs: 0,
      onWaiting: (reason) => reasons.push(reason),
    })
    expect(ingress.asked()).toBe(4)
    expect(reasons).toEqual(Array(3).fill('503 {"status":"not_ready"}'))
  })

  it('keeps waiting while nothing listens, and stops when told to', async () => {
    const closed = await readyAfter(0)
    await new Promise((resolve) => server!.close(resolve))
    const controller = new AbortController()
    const reasons: string[] = []
    const waiting = waitUntilReady(closed.url, {
      pollMs: 5,
      reportEveryMs: 0,
      signal: controller.signal,
      onWaiting: (reason) => {
        reasons.push(reason)
        if (reasons.length === 2) controller.abort()
      },
    })
    await expect(waiting).rejects.toThrow(/abort/i)
    expect(reasons[0]).toMatch(/refused|ECONNREFUSED/i)
  })
})
