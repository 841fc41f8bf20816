import { appendFileSync, readFileSync } from 'node:fs'
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks'
import { getHeapSpaceStatistics } from 'node:v8'

// Preloaded into the ingress by bench/experiments/ingress-memory.ts (`--import`): appends process.memoryUsage(),
// the V8 heap's spaces (committed bytes) and the kernel's split of the resident memory (anonymous
// vs file-backed, /proc/self/smaps_rollup) to MEMORY_SAMPLES_FILE every 100 ms, one JSON line
// each, so the peak can be split into heap, code and memory outside it. Nothing else; the timer
// does not hold the process open. Also counts the collections so far (scavenges, mark-compacts):
// Buffers that lived through two scavenges are freed only by a mark-compact.
const file = process.env.MEMORY_SAMPLES_FILE
const kernelKb = (text: string, field: string) =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024
const collections = { scavenges: 0, markCompacts: 0 }
if (file) {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) collections.scavenges++
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) collections.markCompacts++
    }
  }).observe({ entryTypes: ['gc'] })
  setInterval(() => {
    const rollup = readFileSync('/proc/self/smaps_rollup', 'utf8')
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((space) => [space.space_name, space.physical_space_size]),
    )
    appendFileSync(
      file,
      `${JSON.stringify({
        at: Date.now(),
        ...process.memoryUsage(),
        anon: kernelKb(rollup, 'Anonymous'),
        fileBacked: kernelKb(rollup, 'Rss') - kernelKb(rollup, 'Anonymous'),
        spaces,
        ...collections,
      })}\n`,
    )
  }, 100).unref()
}
