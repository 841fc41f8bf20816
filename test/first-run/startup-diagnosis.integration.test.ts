import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../core/settings/env.ts'
import { findDataDirLockHolder } from '../../core/startup-diagnosis/data-dir-lock-holder.ts'
import { probeHttp } from '../../core/startup-diagnosis/http-probe.ts'
import { probeBroker } from '../../core/startup-diagnosis/kafka-probe.ts'
import { diagnoseRegistry, registryProbeUrl } from '../../core/startup-diagnosis/registry-diagnosis.ts'
import { diagnoseStartup } from '../../core/startup-diagnosis/startup-checks.ts'
import { kafkaBrokers, schemaRegistryUrl } from '../stack/servers.ts'

// The startup checks' observations of real servers: the stack's Kafka and Apicurio Registry, a
// plain HTTP server where Kafka is expected, a closed port, and a chDB data directory that
// another process holds.
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('startup observations of real servers', () => {
  it('tells Kafka from an HTTP server and from nothing', async () => {
    const broker = kafkaBrokers().split(',')[0]!
    expect(await probeBroker(broker)).toEqual({ broker, kind: 'kafka' })

    const http = createServer((_request, response) => response.writeHead(400).end('bad request'))
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    try {
      const at = `127.0.0.1:${(http.address() as AddressInfo).port}`
      expect(await probeBroker(at)).toMatchObject({
        kind: 'not-kafka',
        answered: expect.stringContaining('HTTP/1.1 400'),
      })
    } finally {
      http.close()
    }
    const closed = `127.0.0.1:${await closedPort()}`
    expect(await probeBroker(closed)).toMatchObject({
      kind: 'unreachable',
      reason: expect.stringContaining('refused'),
    })
  })

  it("finds the stack's registry content at its Confluent-compatible path and a 404 at its root", async () => {
    const compat = schemaRegistryUrl()
    expect(diagnoseRegistry(compat, await probeHttp(registryProbeUrl(compat)))).toBeUndefined()
    const root = new URL(compat).origin
    const atRoot = diagnoseRegistry(root, await probeHttp(registryProbeUrl(root)))
    expect(atRoot).toMatchObject({ retriable: false })
    expect(atRoot!.message).toContain('answered 404')
    expect(atRoot!.message).toContain(`SCHEMA_REGISTRY_URL=${root}/apis/ccompat/v7`)
  })

  it('sends credentials of the registry URL as a header, and shows them nowhere', async () => {
    let authorization: string | undefined
    const registry = createServer((request, response) => {
      authorization = request.headers.authorization
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"not found"}')
    })
    await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://alice:s3cret-pw@127.0.0.1:${(registry.address() as AddressInfo).port}`
      const found = await diagnoseStartup(loadConfig({ SCHEMA_REGISTRY_URL: url }), { registry: true })
      expect(authorization).toBe(`Basic ${Buffer.from('alice:s3cret-pw').toString('base64')}`)
      expect(found).toHaveLength(1)
      expect(found[0]).toMatchObject({ variable: 'SCHEMA_REGISTRY_URL', retriable: false })
      expect(found[0]!.message).toContain('answered 404')
      expect(found[0]!.message).not.toMatch(/alice|s3cret-pw/)
    } finally {
      registry.close()
    }
  })

  it('reports every problem of a wrong configuration at once', async () => {
    const port = await closedPort()
    const found = await diagnoseStartup(
      loadConfig({ KAFKA_BROKERS: `127.0.0.1:${port}`, SCHEMA_REGISTRY_URL: `http://127.0.0.1:${port}` }),
      { kafka: true, registry: true },
    )
    expect(found.map((diagnosis) => [diagnosis.variable, diagnosis.retriable])).toEqual([
      ['KAFKA_BROKERS', true],
      ['SCHEMA_REGISTRY_URL', true],
    ])
  })
})

describe('an embedded ClickHouse data directory held by another process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'va-locked-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('names the process that holds it', async () => {
    expect(await findDataDirLockHolder(dir)).toBeUndefined()
    const clickhouseModule = fileURLToPath(new URL('../../core/clickhouse/clickhouse.ts', import.meta.url))
    const holderScript = `
      const { createClickHouse } = await import(${JSON.stringify(clickhouseModule)})
      const client = createClickHouse({ CLICKHOUSE_USER: 'default', CLICKHOUSE_PASSWORD: '', CLICKHOUSE_DATA_DIR: process.argv[1] })
      await client.query({ query: 'SELECT 1' })
      console.log('holding')
      setInterval(() => {}, 1000)`
    const holder = spawn(process.execPath, ['--input-type=module', '-e', holderScript, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('holding') && resolve())
        holder.once('exit', (code) => reject(new Error(`holder exited ${code}`)))
      })
      const found = await findDataDirLockHolder(dir)
      expect(found?.pid).toBe(holder.pid)
      expect(found?.command).toContain('--input-type=module')
      const [diagnosis] = await diagnoseStartup(loadConfig({ CLICKHOUSE_DATA_DIR: dir }), {
        clickhouse: true,
      })
      expect(diagnosis!.message).toContain(`is locked by process ${holder.pid} (`)
    } finally {
      holder.kill('SIGKILL')
    }
  })
})
