import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// The lock file lists every optional dependency of every package (the platform builds of biome,
// chdb and the like for Linux, macOS and Windows), so `npm ci` installs exactly it on any of them and
// `npm install` has nothing to add: a fresh clone stays clean after `./run dev` or `./run test` (#21).
// Before, it listed only this machine's builds and every install rewrote it.
interface LockEntry {
  version?: string
  optionalDependencies?: Record<string, string>
  dependencies?: Record<string, string>
}
const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, LockEntry>
}

/** Where npm would look for `name` from the package at `path` (nested first, then hoisted). */
function resolvedEntry(path: string, name: string): LockEntry | undefined {
  for (let at = path; ; at = at.slice(0, Math.max(0, at.lastIndexOf('/node_modules/')))) {
    const entry = lock.packages[`${at ? `${at}/` : ''}node_modules/${name}`]
    if (entry || at === '') return entry
  }
}

describe('package-lock.json', () => {
  it('has an entry, at the version asked for, for every optional dependency of every package', () => {
    const missing: string[] = []
    for (const [path, entry] of Object.entries(lock.packages))
      for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
        const found = resolvedEntry(path, name)
        if (!found || (/^\d/.test(version) && found.version !== version))
          missing.push(`${path || '(root)'} -> ${name}@${version}`)
      }
    expect(missing).toEqual([])
  })
})
