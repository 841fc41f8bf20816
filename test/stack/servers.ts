import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

// Where the tests find the real servers: explicit URLs in the environment first (TEST_*),
// then the local stack started by `npm run stack:up` (.stack/stack.env), then testcontainers
// where a Docker engine exists (test/stack/containers.ts, a vitest globalSetup that sets the
// TEST_* variables). None of them: the run fails loudly, never skips.
const stackEnvFile = fileURLToPath(new URL('../../.stack/stack.env', import.meta.url))

export function readStackEnv(): Record<string, string> {
  const file = process.env.VA_STACK_DIR ? `${process.env.VA_STACK_DIR}/stack.env` : stackEnvFile
  if (!existsSync(file)) return {}
  const entries = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#') && line.includes('='))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])
  return Object.fromEntries(entries)
}

export function dockerAvailable(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5_000 })
    return true
  } catch {
    return false
  }
}

export class MissingServerError extends Error {
  override name = 'MissingServerError'
}

function missing(what: string, variable: string): never {
  throw new MissingServerError(
    `${what} is required by this test and none was found: run \`npm run stack:up\` (starts Kafka, ` +
      `Apicurio Registry and Keycloak as local processes), or set ${variable}` +
      (dockerAvailable() ? ', or use the testcontainers stack (test/stack/containers.ts)' : ''),
  )
}

function resolve(variable: string, what: string): string {
  return process.env[`TEST_${variable}`] ?? readStackEnv()[variable] ?? missing(what, `TEST_${variable}`)
}

export const kafkaBrokers = () => resolve('KAFKA_BROKERS', 'Kafka')
export const schemaRegistryUrl = () => resolve('SCHEMA_REGISTRY_URL', 'A schema registry')
export const keycloakUrl = () => resolve('KEYCLOAK_URL', 'Keycloak')
