import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readTextIfExists, removeIfExists, writePrivateFileAtomic } from './private-file.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'va-private-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('writePrivateFileAtomic', () => {
  it('creates an owner-only file in an owner-only directory, even under a permissive umask', async () => {
    const previous = process.umask(0)
    try {
      const file = join(dir, 'nested', 'tokens.json')
      await writePrivateFileAtomic(file, '{"a":1}')
      expect((await stat(file)).mode & 0o777).toBe(0o600)
      expect((await stat(join(dir, 'nested'))).mode & 0o777).toBe(0o700)
      expect(await readFile(file, 'utf8')).toBe('{"a":1}')
    } finally {
      process.umask(previous)
    }
  })

  it('replaces the content whole: readers never see a mix, and no temp file stays behind', async () => {
    const file = join(dir, 'state.json')
    const versions = Array.from({ length: 20 }, (_, i) => String(i).repeat(200_000))
    const seen = new Set<string>()
    let writing = true
    const reader = (async () => {
      while (writing) {
        const text = await readTextIfExists(file)
        if (text !== undefined) seen.add(text)
      }
    })()
    for (const version of versions) await writePrivateFileAtomic(file, version)
    writing = false
    await reader
    for (const text of seen) expect(versions).toContain(text)
    expect(await readdir(dir)).toEqual(['state.json'])
  })

  it('reads and removes files that may be missing', async () => {
    expect(await readTextIfExists(join(dir, 'none'))).toBeUndefined()
    expect(await removeIfExists(join(dir, 'none'))).toBe(false)
    await writePrivateFileAtomic(join(dir, 'x'), 'x')
    expect(await removeIfExists(join(dir, 'x'))).toBe(true)
  })
})
