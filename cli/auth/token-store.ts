import { readTextIfExists, removeIfExists, writePrivateFileAtomic } from '../../core/secrets/private-file.ts'
import { withFileLock } from '../config/file-lock.ts'
import { TokenFileError } from './auth-errors.ts'
import { type StoredTokens, storedTokensSchema } from './token-set.ts'

// One environment's tokens on disk: mode 0600, replaced atomically, and a lock that every
// writer holds so concurrent refreshes are serialised (see file-lock.ts).

export type TokenStore = {
  file: string
  read(): Promise<StoredTokens | undefined>
  write(tokens: StoredTokens): Promise<void>
  remove(): Promise<boolean>
  withLock<T>(task: () => Promise<T>): Promise<T>
}

export function tokenStore(file: string): TokenStore {
  return {
    file,
    async read() {
      const text = await readTextIfExists(file)
      if (text === undefined) return undefined
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      const parsed = storedTokensSchema.safeParse(json)
      if (!parsed.success) {
        throw new TokenFileError(
          `the token file ${file} is unreadable: run \`voice-analytics auth logout --local-only\` and log in again`,
        )
      }
      return parsed.data
    },
    async write(tokens) {
      await writePrivateFileAtomic(file, `${JSON.stringify(tokens, null, 2)}\n`)
    },
    remove: () => removeIfExists(file),
    withLock: (task) => withFileLock(`${file}.lock`, task),
  }
}
