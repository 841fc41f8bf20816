import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { topicConfigs, withKafkaAdmin } from '../../core/kafka/kafka-admin.ts'
import { freePort } from '../support/private-kafka.ts'

// The stack script on ports and a state directory of its own: `up` twice is one start,
// `status` tells what runs, `down` stops exactly what it started and leaves nothing running.
const stackScript = fileURLToPath(new URL('../../scripts/stack/stack.sh', import.meta.url))
const run = promisify(execFile)
const services = ['kafka', 'registry']

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

describe('scripts/stack/stack.sh', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'va-stack-script-'))
  const ports = { kafka: await freePort(), controller: await freePort(), registry: await freePort() }
  const env = {
    ...process.env,
    VA_STACK_DIR: stateDir,
    KAFKA_PORT: String(ports.kafka),
    KAFKA_CONTROLLER_PORT: String(ports.controller),
    REGISTRY_PORT: String(ports.registry),
  }
  const stack = (...args: string[]) =>
    run('bash', [stackScript, ...args, ...services], { env, timeout: 300_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: error.stdout + error.stderr,
      }),
    )
  const pids = () => services.map((service) => Number(readFileSync(join(stateDir, `${service}.pid`), 'utf8')))
  afterAll(async () => {
    await stack('down')
    rmSync(stateDir, { recursive: true, force: true })
  })

  it('starts, and a second up is a no-op', async () => {
    const first = await stack('up')
    expect(first.code, first.output).toBe(0)
    const started = pids()
    for (const pid of started) expect(isAlive(pid)).toBe(true)
    const second = await stack('up')
    expect(second.code).toBe(0)
    expect(second.output).toMatch(/kafka already running/)
    expect(second.output).toMatch(/registry already running/)
    expect(pids()).toEqual(started)
    expect(readFileSync(join(stateDir, 'stack.env'), 'utf8')).toContain(
      `KAFKA_BROKERS=127.0.0.1:${ports.kafka}`,
    )
  })

  it('reports what runs', async () => {
    const status = await stack('status')
    expect(status.code).toBe(0)
    expect(status.output).toMatch(new RegExp(`kafka +running .*127\\.0\\.0\\.1:${ports.kafka}`))
    expect(status.output).toMatch(new RegExp(`registry +running .*127\\.0\\.0\\.1:${ports.registry}`))
  })

  it('bounds what a partition keeps on disk, so repeated runs cannot fill it', async () => {
    const configs = await withKafkaAdmin(
      { brokers: `127.0.0.1:${ports.kafka}`, clientId: 'va-test' },
      async (admin) => {
        // The broker's defaults: no partitions, replicas or settings of the topic's own.
        await admin.createTopics({ topics: ['retention-check'], partitions: -1, replicas: -1 })
        return (await topicConfigs(admin, ['retention-check'], ['retention.bytes', 'segment.bytes'])).get(
          'retention-check',
        )
      },
    )
    const value = (name: string) => Number(configs?.get(name))
    expect(value('retention.bytes')).toBe(1024 * 1024 * 1024) // unbounded (-1) by Kafka's default
    expect(value('segment.bytes')).toBe(128 * 1024 * 1024) // 1 GiB by default: nothing would ever be deleted
  })

  it('stops everything it started and nothing is left running', async () => {
    const started = pids()
    const down = await stack('down')
    expect(down.code).toBe(0)
    for (const pid of started) expect(isAlive(pid)).toBe(false)
    expect(await portOpen(ports.kafka)).toBe(false)
    expect(await portOpen(ports.registry)).toBe(false)
    const status = await stack('status')
    expect(status.code).toBe(3)
    expect(status.output).toMatch(/kafka +stopped/)
  })

  it('refuses a port taken by a process it did not start, naming the setting', async () => {
    const taken = await stack('up')
    expect(taken.code).toBe(0)
    const intruderEnv = { ...env, VA_STACK_DIR: mkdtempSync(join(tmpdir(), 'va-stack-other-')) }
    const refused = await run('bash', [stackScript, 'up', 'kafka'], { env: intruderEnv }).catch(
      (error: { code: number; stderr: string }) => error,
    )
    expect((refused as { code: number }).code).toBe(1)
    expect((refused as { stderr: string }).stderr).toMatch(/port \d+ is taken .* set KAFKA_PORT/)
    rmSync(intruderEnv.VA_STACK_DIR, { recursive: true, force: true })
  })
})
