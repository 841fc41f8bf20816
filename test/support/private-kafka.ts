import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

// A Kafka broker of a test's own (same stack script, other ports, own data), for tests that
// stop and start Kafka without disturbing the shared one.
const stackScript = fileURLToPath(new URL('../../scripts/stack/stack.sh', import.meta.url))
const run = promisify(execFile)

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

export interface PrivateKafka {
  brokers: string
  start(): Promise<void>
  stop(): Promise<void>
  remove(): Promise<void>
}

export async function createPrivateKafka(): Promise<PrivateKafka> {
  const stateDir = mkdtempSync(join(tmpdir(), 'va-private-kafka-'))
  const port = await freePort()
  const env = {
    ...process.env,
    VA_STACK_DIR: stateDir,
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(await freePort()),
  }
  const stack = (command: 'up' | 'down') =>
    run('bash', [stackScript, command, 'kafka'], { env, timeout: 300_000 })
  return {
    brokers: `127.0.0.1:${port}`,
    start: async () => void (await stack('up')),
    stop: async () => void (await stack('down')),
    async remove() {
      await stack('down')
      rmSync(stateDir, { recursive: true, force: true })
    },
  }
}
