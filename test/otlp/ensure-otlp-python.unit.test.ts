import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// Without python3 (or its venv module, or pip that can install the pins) the installer of the
// OTLP tests' Python clients (the exporter, Pipecat, LiveKit Agents) fails loudly, naming the
// command that fixes it, and leaves nothing half-made in the cache: the OTLP tests never skip.
const script = fileURLToPath(new URL('../../scripts/ensure-otlp-python.sh', import.meta.url))

/** The script run for `client` with PYTHON=python and an empty cache; the cache's entries after it. */
function runWith(python: string, client?: string) {
  const cache = mkdtempSync(join(tmpdir(), 'va-otlp-python-'))
  try {
    const result = spawnSync('bash', [script, ...(client ? [client] : [])], {
      env: { ...process.env, PYTHON: python, VA_CACHE_DIR: cache },
      encoding: 'utf8',
    })
    // What is left besides the installer's lock file.
    return { ...result, cached: readdirSync(cache).filter((entry) => !entry.endsWith('.lock')) }
  } finally {
    rmSync(cache, { recursive: true, force: true })
  }
}

/** A stand-in interpreter whose `-m venv DIR` makes a venv with a pip that always fails. */
function pythonWithBrokenPip(): { python: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'va-broken-pip-'))
  const python = join(dir, 'python3')
  writeFileSync(
    python,
    '#!/usr/bin/env bash\n[ "$1 $2" = "-m venv" ] || exit 1\nmkdir -p "$3/bin"\n' +
      'printf \'#!/usr/bin/env bash\\necho "no network" >&2\\nexit 1\\n\' > "$3/bin/pip"\n' +
      'cp "$3/bin/pip" "$3/bin/python"\nchmod +x "$3/bin/pip" "$3/bin/python"\n',
  )
  chmodSync(python, 0o755)
  return { python, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

describe('scripts/ensure-otlp-python.sh', () => {
  it('fails with the install command when the Python interpreter is missing', () => {
    const result = runWith('python3-that-is-not-installed')
    expect(result.status).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('python3-that-is-not-installed is not on PATH')
    expect(result.stderr).toContain('apt-get install -y python3 python3-venv')
  })

  it.each(['exporter', 'pipecat', 'livekit'])(
    'fails with the install command when the interpreter cannot make a venv (%s)',
    (client) => {
      // `false` stands for a python3 without its venv module: `false -m venv DIR` fails.
      const result = runWith('false', client)
      expect(result.status).toBe(1)
      expect(result.stderr).toContain('apt-get install -y python3-venv')
      expect(result.cached).toEqual([])
    },
  )

  it('fails naming the pin file when pip cannot install it, and removes the half-made venv', () => {
    const broken = pythonWithBrokenPip()
    try {
      const result = runWith(broken.python, 'pipecat')
      expect(result.status).toBe(1)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain('no network')
      expect(result.stderr).toMatch(/pip could not install .*requirements-pipecat\.txt \(is PyPI reachable\?/)
      expect(result.cached).toEqual([])
    } finally {
      broken.remove()
    }
  })

  it('refuses a client it has no pin file for, naming the ones it knows', () => {
    const result = runWith('python3', 'rasa')
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('known: exporter, pipecat, livekit')
  })
})
