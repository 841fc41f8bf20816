import { randomUUID } from 'node:crypto'
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises'
import { hostname } from 'node:os'
import { dirname } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { ensurePrivateDir } from '../../core/secrets/private-file.ts'
import { LockTimeoutError } from './config-errors.ts'

// A lock between processes: a lock file created with O_EXCL ('wx') that names its owner. A lock
// whose owner died (same host, pid gone) or that is older than `staleMs` is broken, so a crash
// never locks the user out. Used around token refreshes: two CLI processes refreshing at once
// would otherwise both spend the same refresh token, and the loser's rotated token is lost.

export type LockOptions = { waitMs?: number; staleMs?: number; pollMs?: number }
type LockOwner = { pid: number; host: string; nonce: string; created: number }

export async function withFileLock<T>(lockFile: string, task: () => Promise<T>, options: LockOptions = {}) {
  const { waitMs = 60_000, staleMs = 120_000, pollMs = 50 } = options
  const owner: LockOwner = { pid: process.pid, host: hostname(), nonce: randomUUID(), created: Date.now() }
  const deadline = Date.now() + waitMs
  await ensurePrivateDir(dirname(lockFile))
  for (;;) {
    if (await tryCreate(lockFile, owner)) break
    if (await breakIfStale(lockFile, staleMs)) continue
    if (Date.now() > deadline) {
      throw new LockTimeoutError(
        `${lockFile} is held by another voice-analytics process; if none runs, delete the file`,
      )
    }
    await sleep(pollMs + Math.floor(Math.random() * pollMs))
  }
  try {
    return await task()
  } finally {
    await release(lockFile, owner)
  }
}

async function tryCreate(lockFile: string, owner: LockOwner): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(lockFile, 'wx', 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
  try {
    await handle.writeFile(JSON.stringify(owner))
  } finally {
    await handle.close()
  }
  return true
}

async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as LockOwner
  } catch {
    return undefined // gone, or still being written by its creator
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export function isStale(owner: LockOwner | undefined, ageMs: number, staleMs: number, host: string): boolean {
  if (ageMs > staleMs) return true
  if (!owner) return false
  return owner.host === host && !processAlive(owner.pid)
}

async function breakIfStale(lockFile: string, staleMs: number): Promise<boolean> {
  let ageMs: number
  try {
    ageMs = Date.now() - (await stat(lockFile)).mtimeMs
  } catch {
    return true // released meanwhile: try again at once
  }
  const owner = await readOwner(lockFile)
  if (!isStale(owner, ageMs, staleMs, hostname())) return false
  // Move the stale lock aside instead of deleting it: if another waiter broke it first and a new
  // owner took the lock, we would be moving the new owner's file, and can put it back.
  const aside = `${lockFile}.stale-${randomUUID()}`
  try {
    await rename(lockFile, aside)
  } catch {
    return true
  }
  const moved = await readOwner(aside)
  if (owner && moved && moved.nonce !== owner.nonce) {
    await link(aside, lockFile).catch(() => {})
  }
  await unlink(aside).catch(() => {})
  return true
}

async function release(lockFile: string, owner: LockOwner): Promise<void> {
  const current = await readOwner(lockFile)
  if (current?.nonce === owner.nonce) await unlink(lockFile).catch(() => {})
}
