import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { workerNodeFlags } from './main.ts'

// The worker's V8 flags (less garbage held between collections: bench/results/worker.md, "Worker
// memory") cannot be set from code once the heap exists, so every way of starting the worker
// passes them on the command line: npm start:worker here, compose in test/docker-compose.unit.test.ts.
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')

describe('the worker is started with its node flags', () => {
  it('npm run start:worker passes them', () => {
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>
    expect(scripts['start:worker']).toBe(`node ${workerNodeFlags.join(' ')} services/worker/main.ts`)
  })
  it('are flags this node accepts', () => {
    const run = spawnSync(process.execPath, [...workerNodeFlags, '-e', '0'], { encoding: 'utf8' })
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
  })
})
