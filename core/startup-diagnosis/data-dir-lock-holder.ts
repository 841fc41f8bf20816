import { readFile, readlink, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'

// Which process holds an embedded ClickHouse data directory. chDB, like the ClickHouse server,
// takes an exclusive flock on <dir>/status while it has the directory open; Linux lists every
// such lock in /proc/locks by inode, with the pid that took it. The pid is confirmed by the
// process's open files (inode numbers repeat across file systems).
export interface LockHolder {
  pid: number
  /** Its command line, '' when it cannot be read. */
  command: string
}

/** Pids of the /proc/locks lines on this inode (FLOCK and POSIX alike). */
export function pidsLockingInode(procLocks: string, inode: number): number[] {
  const pids: number[] = []
  for (const line of procLocks.split('\n')) {
    // "3: FLOCK  ADVISORY  WRITE 10794 fe:00:9978955 0 EOF" ("->" marks a waiting lock)
    const fields = line.trim().split(/\s+/)
    if (fields[1] === '->') continue
    const device = fields[5]
    if (!device) continue
    if (Number(device.split(':').at(-1)) === inode) pids.push(Number(fields[4]))
  }
  return pids.filter((pid) => Number.isInteger(pid) && pid > 0)
}

async function holdsOpen(pid: number, file: string): Promise<boolean> {
  const { readdir } = await import('node:fs/promises')
  try {
    for (const fd of await readdir(`/proc/${pid}/fd`))
      if ((await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')) === file) return true
  } catch {
    return false
  }
  return false
}

async function commandLine(pid: number): Promise<string> {
  const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
  return raw.split('\0').filter(Boolean).join(' ')
}

/** The other process that locks `dataDir`, or undefined when none does (or it cannot be told). */
export async function findDataDirLockHolder(dataDir: string): Promise<LockHolder | undefined> {
  const statusFile = join(resolve(dataDir), 'status')
  const info = await stat(statusFile).catch(() => undefined)
  if (!info) return undefined
  const locks = await readFile('/proc/locks', 'utf8').catch(() => '')
  for (const pid of pidsLockingInode(locks, info.ino)) {
    if (pid === process.pid) continue
    if (await holdsOpen(pid, statusFile)) return { pid, command: await commandLine(pid) }
  }
  return undefined
}
