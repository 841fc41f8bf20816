import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// The worker talks to Kafka with @platformatic/kafka only (consumer, DLQ producer, admin): loading
// kafkajs beside it costs resident memory for nothing. Checked in a fresh process, as the worker starts.
describe('the worker process', () => {
  it('never loads kafkajs', () => {
    const main = fileURLToPath(new URL('./main.ts', import.meta.url))
    const script = `
      const { createRequire } = await import('node:module')
      await import(${JSON.stringify(main)})
      const loaded = Object.keys(createRequire(import.meta.url).cache)
      console.log(JSON.stringify(loaded.filter((path) => /[\\\\/]node_modules[\\\\/]kafkajs[\\\\/]/.test(path))))
    `
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual([])
  })
})
