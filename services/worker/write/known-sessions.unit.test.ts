import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { hexDigestKey, KnownSessions, sessionKey } from './known-sessions.ts'

describe('sessionKey', () => {
  it('is the first 32 bits of the SHA-256 that forgotten_sessions stores (hex, either case)', () => {
    const hex = createHash('sha256').update('session-1').digest('hex')
    expect(sessionKey('session-1')).toBe(Number.parseInt(hex.slice(0, 8), 16))
    expect(hexDigestKey(hex)).toBe(sessionKey('session-1'))
    expect(hexDigestKey(hex.toUpperCase())).toBe(sessionKey('session-1'))
  })
})

describe('KnownSessions', () => {
  it('knows what was loaded and what was added since, and nothing else', () => {
    const known = new KnownSessions()
    known.replace([sessionKey('a'), sessionKey('b'), sessionKey('a')])
    known.add(['c'])
    expect(['a', 'b', 'c'].map((id) => known.has(id))).toEqual([true, true, true])
    expect(known.has('d')).toBe(false)
    expect(known.size).toBe(3)
  })

  it('a load replaces what was known before', () => {
    const known = new KnownSessions()
    known.add(['a'])
    known.replace([sessionKey('b')])
    expect(known.has('a')).toBe(false)
    expect(known.has('b')).toBe(true)
  })

  it('keeps every key across the folds of added keys into the sorted array (brute-force reference)', () => {
    const known = new KnownSessions()
    const reference = new Set<number>()
    let seed = 12345
    const random = () => {
      seed = (seed * 1103515245 + 12345) >>> 0
      return seed
    }
    const loaded = Array.from({ length: 1000 }, random)
    known.replace(loaded)
    for (const key of loaded) reference.add(key)
    for (let index = 0; index < 150_000; index++) {
      const key = random()
      known.addKey(key)
      reference.add(key)
    }
    expect(known.size).toBe(reference.size)
    for (const key of reference) if (!known.hasKey(key)) throw new Error(`lost ${key}`)
    let absentFound = 0
    for (let index = 0; index < 10_000; index++) {
      const key = random()
      if (known.hasKey(key) !== reference.has(key)) absentFound++
    }
    expect(absentFound).toBe(0)
  })

  it('keys at the ends of the 32-bit range', () => {
    const known = new KnownSessions()
    known.replace([0, 0xffffffff])
    expect(known.hasKey(0)).toBe(true)
    expect(known.hasKey(0xffffffff)).toBe(true)
    expect(known.hasKey(1)).toBe(false)
  })
})
