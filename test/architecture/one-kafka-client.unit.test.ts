import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// One Kafka client in the product, @platformatic/kafka (#33): the ingress, the worker, the CLI, the
// benchmarks and the tests all use it (core/kafka). kafkajs, unmaintained since 2023, is in no
// dependency list, and no package brings it in.
const fromRoot = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8')) as Record<string, unknown>

describe('one Kafka client', () => {
  it('has kafkajs neither as a dependency nor inside one', () => {
    const manifest = fromRoot('package.json')
    const declared = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'].flatMap(
      (list) => Object.keys((manifest[list] as Record<string, string> | undefined) ?? {}),
    )
    expect(declared).toContain('@platformatic/kafka')
    expect(declared).not.toContain('kafkajs')
    const installed = Object.keys(fromRoot('package-lock.json').packages as Record<string, unknown>)
    expect(installed.filter((path) => /(^|\/)node_modules\/kafkajs$/.test(path))).toEqual([])
  })
})
