import { execFileSync, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import setupContainers from './containers.ts'

// Vitest globalSetup of the integration tests: where the real servers come from.
// 1. TEST_KAFKA_BROKERS, TEST_SCHEMA_REGISTRY_URL, TEST_KEYCLOAK_URL all set: those.
// 2. The local stack already running (`npm run stack:up`): that one, left running.
// 3. A Docker engine: testcontainers (test/stack/containers.ts).
// 4. Otherwise the local stack is started here (Java + Maven; downloads cached) and stopped
//    after the run. If that fails, the run fails with the stack script's message.
const stackScript = fileURLToPath(new URL('../../scripts/stack/stack.sh', import.meta.url))
const explicit = ['TEST_KAFKA_BROKERS', 'TEST_SCHEMA_REGISTRY_URL', 'TEST_KEYCLOAK_URL']

function stackRunning(): boolean {
  return spawnSync('bash', [stackScript, 'status'], { stdio: 'ignore' }).status === 0
}

function dockerAvailable(): boolean {
  return spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 5_000 }).status === 0
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (explicit.every((name) => process.env[name])) return undefined
  if (stackRunning()) return undefined
  if (dockerAvailable()) return setupContainers()
  console.log('integration tests: starting the local stack (scripts/stack/stack.sh up)')
  execFileSync('bash', [stackScript, 'up'], { stdio: 'inherit' })
  return async () => {
    execFileSync('bash', [stackScript, 'down'], { stdio: 'inherit' })
  }
}
