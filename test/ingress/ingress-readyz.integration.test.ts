import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateConversations } from '../../generator/conversation-generator.ts'
import { schemaRegistryUrl } from '../stack/servers.ts'
import { postJson, startTestIngress, type TestIngress } from '../support/ingress-test-server.ts'
import { createTcpFaultProxy, type TcpFaultProxy } from '../support/tcp-fault-proxy.ts'

// /readyz with a registry URL that carries credentials (http://user:pass@host/...), reached
// through a pass-through the test switches off: no answer ever contains the credentials (errors
// name the host), and once the schema is registered and cached the registry is not required.
describe('/readyz', () => {
  const password = 'readyz-secret-pw-93f1'
  let proxy: TcpFaultProxy
  let registryUrl: string
  let ingress: TestIngress
  let late: TestIngress | undefined
  const [event] = generateConversations({ count: 1, seed: 777, historyItems: 2 })

  beforeAll(async () => {
    const real = new URL(schemaRegistryUrl())
    proxy = await createTcpFaultProxy({ host: real.hostname, port: Number(real.port) })
    registryUrl = `http://registry-user:${password}@127.0.0.1:${proxy.port}${real.pathname}`
    ingress = await startTestIngress({ SCHEMA_REGISTRY_URL: registryUrl })
  })
  afterAll(async () => {
    await late?.close()
    await ingress?.close()
    await proxy?.close()
  })

  async function readyz(target: TestIngress) {
    const response = await fetch(`${target.url}/readyz`)
    const text = await response.text()
    return {
      status: response.status,
      text,
      checks: (JSON.parse(text) as { checks: Record<string, string> }).checks,
    }
  }

  it('is ready with a registry URL that carries credentials, and echoes none of them', async () => {
    await ingress.waitUntilReady()
    const { status, text, checks } = await readyz(ingress)
    expect(status).toBe(200)
    expect(checks.registry).toBe('ok')
    expect(text).not.toContain(password)
    expect(text).not.toContain('registry-user')
  })

  it('stays ready and keeps accepting while the registry is away, the schema being cached', async () => {
    await proxy.down('refuse')
    const { status, text, checks } = await readyz(ingress)
    expect(status).toBe(200)
    expect(checks.registry).toContain(`127.0.0.1:${proxy.port}`)
    expect(checks.registry).toContain('ECONNREFUSED')
    expect(text).not.toContain(password)
    expect(text).not.toContain('registry-user')
    const response = await postJson(ingress.webhookUrl(), event)
    expect(response.status).toBe(202)
    expect(ingress.logs.join('')).not.toContain(password)
  })

  it('is not ready before the schema could be registered, and names the registry by its host only', async () => {
    late = await startTestIngress({ SCHEMA_REGISTRY_URL: registryUrl })
    const { status, text, checks } = await readyz(late)
    expect(status).toBe(503)
    expect(checks.schema).toBe('not registered yet')
    expect(checks.registry).toContain(`127.0.0.1:${proxy.port}`)
    expect(text).not.toContain(password)
    expect(text).not.toContain('registry-user')
    await proxy.up()
    await late.waitUntilReady()
    expect(late.logs.join('')).not.toContain(password)
  })
})
