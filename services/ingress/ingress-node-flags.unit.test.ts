import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { environmentPrefix } from '../../core/runtime/shell-environment.ts'
import { workerEnvironment } from '../worker/main.ts'
import { ingressEnvironment, ingressNodeFlags } from './main.ts'

// The ingress's V8 flags (a smaller young generation, less resident memory under load) cannot be
// set from code once the heap exists (v8.setFlagsFromString of --max-semi-space-size halves the
// young generation instead of bounding it), so every way of starting the ingress passes them on
// the command line: npm start:ingress and compose (test/docker-compose.unit.test.ts), and the dev
// pipeline, which runs the ingress in its process. Likewise glibc's malloc settings
// (ingressEnvironment), read before any code runs.
// The dev pipeline runs the worker in the same process: its allocator settings too.
const devEnvironmentPrefix = environmentPrefix({ ...ingressEnvironment, ...workerEnvironment })
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')

describe('the ingress is started with its node flags and malloc settings on every path', () => {
  it('npm run dev passes them', () => {
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>
    expect(scripts.dev).toBe(`${devEnvironmentPrefix} node ${ingressNodeFlags.join(' ')} dev-server/main.ts`)
  })
  it('./run dev passes them', () => {
    const lines = read('run')
      .split('\n')
      .filter((line) => line.includes('dev-server/main.ts') && line.includes(' node '))
    expect(lines).toHaveLength(1)
    expect(lines[0]!.trim()).toBe(
      `${devEnvironmentPrefix} node ${ingressNodeFlags.join(' ')} dev-server/main.ts &`,
    )
  })

  it('a node started with them has an old generation of at most 1.5 GiB (so V8 collects it sooner)', () => {
    // Without the flag the limit is a quarter of the machine's memory (4 GiB on a 16+ GiB machine),
    // and from 2 GiB up V8 lets the old generation, where Buffers that lived through two scavenges
    // wait, grow up to 4× between mark-compacts (bench/results/ingress.md). V8's limit = old generation + the young
    // generation's reserve (3 semi-spaces, 24 MB with --max-semi-space-size=8).
    const limitBytes = Number(
      execFileSync(process.execPath, [...ingressNodeFlags, '-p', 'v8.getHeapStatistics().heap_size_limit'], {
        encoding: 'utf8',
      }),
    )
    expect(limitBytes).toBeLessThanOrEqual((1536 + 3 * 8) * 1024 * 1024)
  })
})
