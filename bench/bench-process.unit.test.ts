import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { startScriptParts } from './bench-process.ts'

// The benches start each checkout's worker as its package.json's start:worker does: the environment
// in front of node and node's flags, read from that line.
describe('startScriptParts', () => {
  it('takes the environment before node and the flags before the script', () => {
    expect(
      startScriptParts(
        'MALLOC_ARENA_MAX=2 JE_MALLOC_CONF=dirty_decay_ms:250 node --max-semi-space-size=16 services/worker/main.ts --x',
      ),
    ).toEqual({
      environment: { MALLOC_ARENA_MAX: '2', JE_MALLOC_CONF: 'dirty_decay_ms:250' },
      nodeFlags: ['--max-semi-space-size=16'],
    })
  })
  it('a line without environment or flags', () => {
    expect(startScriptParts('node services/worker/main.ts')).toEqual({ environment: {}, nodeFlags: [] })
    expect(startScriptParts('')).toEqual({ environment: {}, nodeFlags: [] })
  })
  it('refuses a word before node that is not an assignment (a wrapper it would not run)', () => {
    expect(() => startScriptParts('nice -n 5 node services/worker/main.ts')).toThrow(/nice/)
  })
  it("reads this checkout's start:worker", () => {
    const scripts = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts
    const { nodeFlags } = startScriptParts(scripts['start:worker'])
    expect(nodeFlags.every((flag) => flag.startsWith('--'))).toBe(true)
  })
})
