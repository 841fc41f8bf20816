import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { readTextIfExists, writePrivateFileAtomic } from './private-file.ts'

// Secrets the local main job makes up for itself (the dev webhook secret, the SQL endpoint's
// token). Kept in the state directory, owner-only, so they survive restarts and the CLI on the
// same checkout finds them without anything being exported by hand.

/** Where the local main job keeps its state: VA_STATE_DIR, else `./data` (beside the embedded ClickHouse). */
export function localStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.VA_STATE_DIR || 'data'
}

export const localSecretFile = (stateDir: string, name: string) => join(stateDir, 'secrets', name)

/** The secret stored under `name`, or undefined when none was made yet. */
export async function readLocalSecret(stateDir: string, name: string): Promise<string | undefined> {
  const text = await readTextIfExists(localSecretFile(stateDir, name))
  const secret = text?.trim()
  return secret ? secret : undefined
}

/** The secret stored under `name`; made up (24 random bytes, base64url) and stored 0600 the first time. */
export async function loadOrCreateLocalSecret(stateDir: string, name: string): Promise<string> {
  const existing = await readLocalSecret(stateDir, name)
  if (existing) return existing
  const secret = randomBytes(24).toString('base64url')
  await writePrivateFileAtomic(localSecretFile(stateDir, name), `${secret}\n`)
  return secret
}
