import { execFileSync, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import setupContainers from './containers.ts'
import { dockerAvailable } from './servers.ts'

// Vitest globalSetup of the integration tests: where the real servers come from.
// 1. TEST_KAFKA_BROKERS, TEST_SCHEMA_REGISTRY_URL, TEST_KEYCLOAK_URL all set: those.
// 2. The local stack already running (`npm run stack:up`): that one, left running.
// 3. A Docker engine: testcontainers (test/stack/containers.ts).
// 4. Otherwise the services of the local stack that are not running are started here (Java +
//    Maven; downloads cached), and only those are stopped after the run. If that fails, the run
//    fails with the stack script's message.
const stackScript = fileURLToPath(new URL('../../scripts/stack/stack.sh', import.meta.url))
const explicit = ['TEST_KAFKA_BROKERS', 'TEST_SCHEMA_REGISTRY_URL', 'TEST_KEYCLOAK_URL']
const services = ['kafka', 'registry', 'keycloak']

const running = (service: string) =>
  spawnSync('bash', [stackScript, 'status', service], { stdio: 'ignore' }).status === 0

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (explicit.every((name) => process.env[name])) return undefined
  const missing = services.filter((service) => !running(service))
  if (missing.length === 0) return undefined
  if (missing.length === services.length && dockerAvailable()) return setupContainers()
  console.log(`integration tests: starting ${missing.join(', ')} (scripts/stack/stack.sh up)`)
  execFileSync('bash', [stackScript, 'up', ...missing], { stdio: 'inherit' })
  return async () => {
    execFileSync('bash', [stackScript, 'down', ...missing], { stdio: 'inherit' })
  }
}
