import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// `./run help`: the two first commands of the README, and the CLI through the right Node.
const runScript = fileURLToPath(new URL('../../run', import.meta.url))

describe('./run help', () => {
  it('names the main job, the test suite and the CLI passthrough', () => {
    const text = execFileSync('bash', [runScript, 'help'], { encoding: 'utf8' })
    expect(text).toMatch(/^ {2}\.\/run dev {2,}the main job in the foreground/m)
    expect(text).toMatch(/^ {2}\.\/run test {2,}the whole test suite/m)
    expect(text).toMatch(/^ {2}\.\/run <cli command>/m)
    expect(text).not.toMatch(/^#/m)
    expect(execFileSync('bash', [runScript, '--help'], { encoding: 'utf8' })).toBe(text)
  })
})
