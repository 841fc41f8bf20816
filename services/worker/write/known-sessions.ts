import { createHash } from 'node:crypto'

// The conversations ClickHouse may hold or has forgotten, kept in the worker's memory so that the
// common write — first deliveries of conversations never seen — asks ClickHouse nothing before its
// inserts (conversation-write.ts). A session is kept as the first 32 bits of the SHA-256 of its id, the hash
// forgotten_sessions stores, so one load reads both tables: 4 bytes per conversation (1,000,000
// conversations: 4 MB), sorted for a binary search, plus a Set of those added since the last sort.
// Two ids may share 32 bits (about one write in 4,000 at 1,000,000 stored): the write then looks
// that conversation up as it would a re-delivery. A false "known" costs a lookup; a false "unknown"
// is impossible for what was loaded or added.

/** The 32 bits a session is known by: the first 8 hex digits of SHA-256 of its id. */
export function sessionKey(sessionId: string): number {
  return createHash('sha256').update(sessionId).digest().readUInt32BE(0)
}

/** The key of a stored SHA-256 hex digest (forgotten_sessions.session_hash, or ClickHouse's hex(SHA256(...))). */
export function hexDigestKey(hex: string): number {
  return Number.parseInt(hex.slice(0, 8), 16)
}

/** Added keys are folded into the sorted array once this many wait in the Set (a merge costs O(n)). */
const foldAt = 65_536

function sortedUnique(values: Uint32Array): Uint32Array {
  const sorted = values.sort()
  let length = 0
  for (let index = 0; index < sorted.length; index++)
    if (index === 0 || sorted[index] !== sorted[index - 1]) sorted[length++] = sorted[index]!
  return sorted.slice(0, length)
}

export class KnownSessions {
  private sorted: Uint32Array = new Uint32Array(0)
  private recent = new Set<number>()

  /** Replaces what is known by these keys (a load from ClickHouse). */
  replace(keys: Iterable<number>): void {
    this.sorted = sortedUnique(Uint32Array.from(keys))
    this.recent = new Set()
  }

  /** These sessions are stored (or forgotten) from now on. */
  add(sessionIds: Iterable<string>): void {
    for (const id of sessionIds) this.addKey(sessionKey(id))
  }

  addKey(key: number): void {
    if (this.hasKey(key)) return
    this.recent.add(key)
    if (this.recent.size >= foldAt) this.fold()
  }

  /** False only for a session never added nor loaded. */
  has(sessionId: string): boolean {
    return this.hasKey(sessionKey(sessionId))
  }

  hasKey(key: number): boolean {
    if (this.recent.has(key)) return true
    let low = 0
    let high = this.sorted.length - 1
    while (low <= high) {
      const middle = (low + high) >>> 1
      const value = this.sorted[middle]!
      if (value === key) return true
      if (value < key) low = middle + 1
      else high = middle - 1
    }
    return false
  }

  /** Distinct keys held. */
  get size(): number {
    return this.sorted.length + this.recent.size
  }

  private fold(): void {
    const all = new Uint32Array(this.sorted.length + this.recent.size)
    all.set(this.sorted)
    let index = this.sorted.length
    for (const key of this.recent) all[index++] = key
    this.sorted = sortedUnique(all)
    this.recent = new Set()
  }
}
