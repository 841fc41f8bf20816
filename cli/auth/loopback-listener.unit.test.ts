import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { parseLoopbackRedirectUri } from '../config/loopback.ts'
import { startCallbackListener } from './loopback-listener.ts'

// The login callback listener on a free loopback port (no identity server involved).

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function listener(timeoutMs = 10_000) {
  const redirect = parseLoopbackRedirectUri(`http://127.0.0.1:${await freePort()}/callback`)
  return { redirect, listening: await startCallbackListener(redirect, 'expected-state', timeoutMs) }
}

describe('startCallbackListener', () => {
  it('hands back the callback URL when state matches; other paths get 404', async () => {
    const { redirect, listening } = await listener()
    try {
      expect((await fetch(`http://127.0.0.1:${redirect.port}/other`)).status).toBe(404)
      const answer = await fetch(`${redirect.uri}?code=c1&state=expected-state&iss=x`)
      expect(answer.status).toBe(200)
      const url = await listening.callback
      expect(url.searchParams.get('code')).toBe('c1')
      expect(`${url.origin}${url.pathname}`).toBe(redirect.uri)
      expect((await fetch(`${redirect.uri}?code=c2&state=expected-state`)).status).toBe(409)
    } finally {
      await listening.close()
    }
  })

  it('aborts on a state mismatch', async () => {
    const { redirect, listening } = await listener()
    try {
      const answer = await fetch(`${redirect.uri}?code=c1&state=forged`)
      expect(answer.status).toBe(400)
      expect(await answer.text()).toContain('state mismatch')
      await expect(listening.callback).rejects.toThrow(/login aborted: the callback's "state" does not match/)
    } finally {
      await listening.close()
    }
  })

  it("reports the identity server's error answer", async () => {
    const { redirect, listening } = await listener()
    try {
      await fetch(`${redirect.uri}?error=access_denied&error_description=User+cancelled&state=expected-state`)
      await expect(listening.callback).rejects.toThrow(
        'the identity server refused the login: access_denied: User cancelled',
      )
    } finally {
      await listening.close()
    }
  })

  it('times out, and refuses a port that is taken', async () => {
    const { redirect, listening } = await listener(100)
    try {
      await expect(listening.callback).rejects.toThrow(/no login callback within 0 s/)
      await expect(startCallbackListener(redirect, 's', 1_000)).rejects.toThrow(
        `port ${redirect.port} of the redirect URI ${redirect.uri} is in use by another program`,
      )
    } finally {
      await listening.close()
    }
  })
})
