import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, unlinkSync } from 'node:fs'
import { unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// chDB's Node binding hands raw inserts only text formats; a binary block reaches the engine as a
// file it reads itself (INSERT ... FROM INFILE). The file lives in memory where /dev/shm exists, is
// the user's alone (0600, created exclusively under a random name), and is removed once the insert
// returns. A process killed mid-insert cannot remove its file: the next embedded client of any
// process removes the files of processes that no longer run.
export const insertFileDir = existsSync('/dev/shm') ? '/dev/shm' : tmpdir()
const insertFileName = /^va-insert-(\d+)-[0-9a-f-]+\.native$/

/** Runs `use` with `block` in a private file, removed afterwards whatever happens. */
export async function withInsertFile<T>(block: Buffer, use: (file: string) => Promise<T>): Promise<T> {
  const file = join(insertFileDir, `va-insert-${process.pid}-${randomUUID()}.native`)
  await writeFile(file, block, { flag: 'wx', mode: 0o600 })
  try {
    return await use(file)
  } finally {
    await unlink(file).catch(() => {})
  }
}

const running = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Removes the insert files of processes that are gone; returns their names. */
export function removeOrphanInsertFiles(): string[] {
  const orphans = readdirSync(insertFileDir).filter((name) => {
    const pid = insertFileName.exec(name)?.[1]
    return pid !== undefined && !running(Number(pid))
  })
  for (const name of orphans)
    try {
      unlinkSync(join(insertFileDir, name))
    } catch {
      // Another process removed it first, or it is not ours to remove.
    }
  return orphans
}
