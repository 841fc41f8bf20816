import { createRequire, Module } from 'node:module'
import { crc32c } from '@node-rs/crc32'

// kafkajs checksums every record batch with a pure-JS CRC32C, a tenth of the ingress's CPU
// for ~25 KB events. Before kafkajs loads, its checksum module is put in the require cache
// as the native one (same function, same unsigned result; a unit test compares them).
const require = createRequire(import.meta.url)
export const kafkajsCrcModulePath = require.resolve('kafkajs/src/protocol/recordBatch/crc32C/index.js')

export const nativeCrc32c = (buffer: Buffer): number => crc32c(buffer) >>> 0

const cached = new Module(kafkajsCrcModulePath)
cached.filename = kafkajsCrcModulePath
cached.loaded = true
cached.exports = nativeCrc32c
require.cache[kafkajsCrcModulePath] ??= cached
