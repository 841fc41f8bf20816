import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { LockTimeoutError } from './config-errors.ts'
import { withFileLock } from './file-lock.ts'

const run = promisify(execFile)
const lockModule = new URL('./file-lock.ts', import.meta.url).href

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'va-lock-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

// Each process does read-increment-write on a shared counter with a pause in between: without
// mutual exclusion the processes overwrite each other's increments.
const incrementer = (counter: string, lock: string, rounds: number) => `
  import { readFile, writeFile } from 'node:fs/promises'
  import { setTimeout as sleep } from 'node:timers/promises'
  import { withFileLock } from ${JSON.stringify(lockModule)}
  for (let i = 0; i < ${rounds}; i++) {
    await withFileLock(${JSON.stringify(lock)}, async () => {
      const value = Number(await readFile(${JSON.stringify(counter)}, 'utf8'))
      await sleep(2)
      await writeFile(${JSON.stringify(counter)}, String(value + 1))
    }, { pollMs: 5 })
  }
`

describe('withFileLock', () => {
  it('lets only one of several processes in at a time', async () => {
    const counter = join(dir, 'counter')
    const lock = join(dir, 'counter.lock')
    await writeFile(counter, '0')
    const script = incrementer(counter, lock, 25)
    await Promise.all([1, 2, 3].map(() => run(process.execPath, ['--input-type=module', '-e', script])))
    expect(await readFile(counter, 'utf8')).toBe('75')
    await expect(stat(lock)).rejects.toThrow(/ENOENT/)
  })

  it('serialises concurrent holders within one process too', async () => {
    const lock = join(dir, 'p.lock')
    const events: string[] = []
    const hold = (name: string) =>
      withFileLock(
        lock,
        async () => {
          events.push(`${name} in`)
          await new Promise((resolve) => setTimeout(resolve, 20))
          events.push(`${name} out`)
        },
        { pollMs: 5 },
      )
    await Promise.all([hold('a'), hold('b')])
    expect(events).toHaveLength(4)
    expect(events[0]!.split(' ')[0]).toBe(events[1]!.split(' ')[0])
    expect(events[2]!.split(' ')[0]).toBe(events[3]!.split(' ')[0])
  })

  it('breaks the lock of a process that died', async () => {
    const lock = join(dir, 'dead.lock')
    const { stdout } = await run(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'])
    await writeFile(
      lock,
      JSON.stringify({ pid: Number(stdout), host: hostname(), nonce: 'old', created: Date.now() }),
    )
    expect(await withFileLock(lock, async () => 'entered', { waitMs: 2_000 })).toBe('entered')
  })

  it('breaks a lock older than staleMs, even of a live process', async () => {
    const lock = join(dir, 'old.lock')
    await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'old', created: 0 }))
    const past = new Date(Date.now() - 10 * 60_000)
    await utimes(lock, past, past)
    expect(await withFileLock(lock, async () => 'entered', { waitMs: 2_000, staleMs: 60_000 })).toBe(
      'entered',
    )
  })

  it('gives up with a clear error while a live process holds the lock', async () => {
    const lock = join(dir, 'held.lock')
    await writeFile(
      lock,
      JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'held', created: Date.now() }),
    )
    const attempt = withFileLock(lock, async () => 'entered', { waitMs: 200, pollMs: 20 })
    await expect(attempt).rejects.toThrow(LockTimeoutError)
    await expect(withFileLock(lock, async () => 1, { waitMs: 50 })).rejects.toThrow(
      /held by another voice-analytics/,
    )
    expect(JSON.parse(await readFile(lock, 'utf8')).nonce).toBe('held')
  })

  it('releases the lock when the task fails', async () => {
    const lock = join(dir, 'fail.lock')
    await expect(withFileLock(lock, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    await expect(stat(lock)).rejects.toThrow(/ENOENT/)
  })
})
