import { randomUUID } from 'node:crypto'
import { chmod, mkdir, open, readFile, rename, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'

// Files that hold tokens: owner-only (0600, directory 0700), replaced atomically (temp file +
// fsync + rename) so a reader sees the old or the new content, never half of it.

export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 })
}

export async function writePrivateFileAtomic(file: string, text: string): Promise<void> {
  await ensurePrivateDir(dirname(file))
  const temp = `${file}.${process.pid}.${randomUUID()}.tmp`
  const handle = await open(temp, 'wx', 0o600)
  try {
    // The mode given to open() is narrowed by the umask, never widened; chmod makes it exact.
    await handle.chmod(0o600)
    await handle.writeFile(text, 'utf8')
    await handle.sync()
  } catch (error) {
    await handle.close()
    await unlink(temp).catch(() => {})
    throw error
  }
  await handle.close()
  try {
    await rename(temp, file)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
  await chmod(file, 0o600)
}

export async function readTextIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

export async function removeIfExists(file: string): Promise<boolean> {
  try {
    await unlink(file)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
}
