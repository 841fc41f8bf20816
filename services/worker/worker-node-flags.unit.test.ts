import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { workerEnvironment, workerEnvironmentPrefix, workerNodeFlags } from './main.ts'

// The worker's V8 flags (less garbage held between collections: bench/results/worker.md, "Worker
// memory") cannot be set from code once the heap exists, nor its allocators' settings
// (workerEnvironment, read before any code runs), so every way of starting the worker passes them:
// npm start:worker here, compose in test/docker-compose.unit.test.ts, the dev pipeline (which runs
// the worker in its process) in services/ingress/ingress-node-flags.unit.test.ts.
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')

describe('the worker is started with its node flags and allocator settings', () => {
  it('npm run start:worker passes them', () => {
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>
    expect(scripts['start:worker']).toBe(
      `${workerEnvironmentPrefix} node ${workerNodeFlags.join(' ')} services/worker/main.ts`,
    )
  })
  it('are flags this node accepts', () => {
    const run = spawnSync(process.execPath, [...workerNodeFlags, '-e', '0'], { encoding: 'utf8' })
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
  })
  it('a node started with them has an old generation of at most 1.5 GiB (so V8 collects it sooner)', () => {
    // From 2 GiB up V8 lets the old generation grow up to 4x what survives between mark-compacts;
    // at 1.5 GiB ~1.8x. V8's limit = old generation + the young generation's reserve (3 semi-spaces).
    const limitBytes = Number(
      execFileSync(process.execPath, [...workerNodeFlags, '-p', 'v8.getHeapStatistics().heap_size_limit'], {
        encoding: 'utf8',
      }),
    )
    expect(limitBytes).toBeLessThanOrEqual((1536 + 3 * 16) * 1024 * 1024)
  })
  it("the embedded engine's jemalloc takes JE_MALLOC_CONF (chDB's jemalloc has the je_ prefix)", () => {
    const script = [
      "const { mkdtempSync, rmSync } = require('node:fs')",
      "const dir = mkdtempSync(require('node:path').join(require('node:os').tmpdir(), 'va-jemalloc-'))",
      "const session = new (require('chdb').Session)(dir)",
      "const stats = session.query('SELECT stats FROM system.jemalloc_stats', 'RawBLOB').toString()",
      'rmSync(dir, { recursive: true, force: true })',
      "console.log(stats.split('opt.dirty_decay_ms: ')[1].split(' ')[0])",
    ].join(';')
    const decay = execFileSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      env: { ...process.env, ...workerEnvironment },
      cwd: new URL('../..', import.meta.url),
    }).trim()
    expect(`dirty_decay_ms:${decay}`).toBe(workerEnvironment.JE_MALLOC_CONF)
  }, 60_000)
})
