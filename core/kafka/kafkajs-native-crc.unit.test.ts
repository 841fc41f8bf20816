import { randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { kafkajsCrcModulePath, nativeCrc32c } from './kafkajs-native-crc.ts'

const require = createRequire(import.meta.url)
// The pure-JS implementation kafkajs ships, loaded from its own file (not the cached override).
const javascriptCrc32c = require(kafkajsCrcModulePath.replace(/index\.js$/, 'crc32C.js')) as (
  buffer: Buffer,
) => number

describe('native CRC32C for kafkajs', () => {
  it('gives the same unsigned checksum as kafkajs for many buffers', () => {
    for (const size of [0, 1, 7, 64, 1000, 25_000, 1_000_003]) {
      const buffer = randomBytes(size)
      expect(nativeCrc32c(buffer)).toBe(javascriptCrc32c(buffer) >>> 0)
    }
  })
  it('is what kafkajs loads', async () => {
    await import('./kafka.ts')
    expect(require(kafkajsCrcModulePath)).toBe(nativeCrc32c)
  })
})
