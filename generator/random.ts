// A small seeded PRNG (mulberry32) and the draws the generator needs. Math.random cannot be
// seeded, and tests, demos and benchmarks must be able to reproduce a data set from its seed.

export interface Random {
  /** Uniform in [0, 1). */
  next(): number
  /** Integer in [min, max], both included. */
  int(min: number, max: number): number
  /** Uniform in [min, max). */
  float(min: number, max: number): number
  chance(probability: number): boolean
  pick<T>(items: readonly T[]): T
  /** Picks by relative weight. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T
  /** Standard normal (Box-Muller). */
  normal(): number
  /** Log-normal with the given median; sigma is the spread of the underlying normal. */
  logNormal(median: number, sigma: number): number
  hex(length: number): string
  alphanumeric(length: number): string
  digits(length: number): string
  /** A random UUID of version 4 shape. */
  uuid(): string
}

const alphanumerics = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

export function createRandom(seed: number): Random {
  if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`)
  let state = Math.trunc(seed) >>> 0

  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  const pick = <T>(items: readonly T[]): T => {
    if (items.length === 0) throw new RangeError('cannot pick from an empty list')
    return items[int(0, items.length - 1)]!
  }
  const fromAlphabet = (alphabet: string, length: number): string => {
    let out = ''
    for (let i = 0; i < length; i++) out += alphabet[int(0, alphabet.length - 1)]
    return out
  }
  const hex = (length: number): string => fromAlphabet('0123456789abcdef', length)
  const normal = (): number => {
    const u = 1 - next() // (0, 1]: log(0) would be -Infinity
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next())
  }

  return {
    next,
    int,
    float: (min, max) => min + next() * (max - min),
    chance: (probability) => next() < probability,
    pick,
    weighted: <T>(entries: readonly (readonly [T, number])[]): T => {
      const total = entries.reduce((sum, [, weight]) => sum + weight, 0)
      let at = next() * total
      for (const [value, weight] of entries) {
        at -= weight
        if (at < 0) return value
      }
      return entries[entries.length - 1]![0]
    },
    normal,
    logNormal: (median, sigma) => median * Math.exp(sigma * normal()),
    hex,
    alphanumeric: (length) => fromAlphabet(alphanumerics, length),
    digits: (length) => fromAlphabet('0123456789', length),
    uuid: () => {
      const variant = '89ab'[int(0, 3)]
      return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`
    },
  }
}
