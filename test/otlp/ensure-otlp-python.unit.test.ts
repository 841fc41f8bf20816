import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// Without python3 (or its venv module) the exporter's installer fails loudly, naming the command
// that fixes it, and leaves nothing half-made in the cache: the OTLP tests never skip.
const script = fileURLToPath(new URL('../../scripts/ensure-otlp-python.sh', import.meta.url))

/** The script run with PYTHON=python and an empty cache; the cache's entries after it. */
function runWith(python: string) {
  const cache = mkdtempSync(join(tmpdir(), 'va-otlp-python-'))
  try {
    const result = spawnSync('bash', [script], {
      env: { ...process.env, PYTHON: python, VA_CACHE_DIR: cache },
      encoding: 'utf8',
    })
    return { ...result, cached: readdirSync(cache) }
  } finally {
    rmSync(cache, { recursive: true, force: true })
  }
}

describe('scripts/ensure-otlp-python.sh', () => {
  it('fails with the install command when the Python interpreter is missing', () => {
    const result = runWith('python3-that-is-not-installed')
    expect(result.status).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('python3-that-is-not-installed is not on PATH')
    expect(result.stderr).toContain('apt-get install -y python3 python3-venv')
  })

  it('fails with the install command when the interpreter cannot make a venv', () => {
    // `false` stands for a python3 without its venv module: `false -m venv DIR` fails.
    const result = runWith('false')
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('apt-get install -y python3-venv')
    expect(result.cached).toEqual([])
  })
})
