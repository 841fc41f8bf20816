import { mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadOrCreateLocalSecret, localSecretFile, localStateDir, readLocalSecret } from './local-secret.ts'

describe('local secrets', () => {
  it('makes a secret once, stores it owner-only, and returns the same one afterwards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'va-local-secret-'))
    expect(await readLocalSecret(dir, 'webhook')).toBeUndefined()
    const first = await loadOrCreateLocalSecret(dir, 'webhook')
    expect(first).toMatch(/^[A-Za-z0-9_-]{32}$/)
    expect(statSync(localSecretFile(dir, 'webhook')).mode & 0o777).toBe(0o600)
    expect(await loadOrCreateLocalSecret(dir, 'webhook')).toBe(first)
    expect(await readLocalSecret(dir, 'webhook')).toBe(first)
    expect(await loadOrCreateLocalSecret(dir, 'sql')).not.toBe(first)
  })

  it('uses VA_STATE_DIR when set, else ./data', () => {
    expect(localStateDir({ VA_STATE_DIR: '/tmp/x' })).toBe('/tmp/x')
    expect(localStateDir({})).toBe('data')
  })
})
