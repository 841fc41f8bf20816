import { createLogger } from '../../core/runtime/logger.ts'
import { runUntilSignal } from '../../core/runtime/run-until-signal.ts'
import { environmentPrefix } from '../../core/runtime/shell-environment.ts'
import { loadConfig } from '../../core/settings/env.ts'
import { checkStartup } from '../../core/startup-diagnosis/startup-checks.ts'
import { startWorker } from './worker.ts'

// `npm run start:worker` (started with workerNodeFlags). SIGTERM/SIGINT: finish the batch in flight,
// commit, disconnect, exit 0.
/**
 * The worker's V8 heap: most of it at its peak is garbage and young-generation room, not data held
 * (bench/results/worker.md, "Worker memory"). Node 24 grows the young generation to 2 x 64 MB on a
 * large machine; 2 x 16 MB costs no CPU per conversation there and 60-70 MB less resident memory.
 * A 1.5 GiB old generation (default: a quarter of the machine's memory) makes V8 let it grow ~1.8x
 * what survives a mark-compact instead of up to 4x (as for the ingress): ~50 MB survive, so the heap
 * peaks ~100 MB lower, and the Buffers that wait for a mark-compact go sooner: -130 to -170 MB peak
 * RSS draining a backlog, more mark-compacts (with workerEnvironment: -180 MB, ~8 % more CPU per
 * conversation; bench/results/worker.md, "Worker peak RSS against the Kafka engine"). Only the
 * command line sets them: package.json (start:worker) and compose pass these (worker-node-flags
 * test); the dev pipeline, which runs the worker in the ingress's process, passes the ingress's
 * (the same old generation); the benches start the worker as start:worker does.
 */
export const workerNodeFlags = ['--max-semi-space-size=16', '--max-old-space-size=1536']
/**
 * Allocator settings, read before any code runs, so every start path sets them in the environment
 * beside workerNodeFlags (worker-node-flags test): glibc's malloc with 2 arenas instead of 8 per core
 * (as the ingress: freed Buffers reused instead of kept in arenas of their own), and the embedded
 * engine's jemalloc (chDB reads JE_MALLOC_CONF) giving freed pages back after 250 ms instead of 5 s,
 * so a merge's or an insert's freed memory is not still resident when the next one allocates. Each
 * ~20-40 MB less peak RSS draining a backlog, no CPU per conversation measured.
 */
export const workerEnvironment = { MALLOC_ARENA_MAX: '2', JE_MALLOC_CONF: 'dirty_decay_ms:250' }
/** The same as a shell prefix, as package.json writes it. */
export const workerEnvironmentPrefix = environmentPrefix(workerEnvironment)

if (import.meta.main) {
  const logger = createLogger('worker')
  await runUntilSignal(
    logger,
    async () => {
      const config = loadConfig()
      await checkStartup(config, { kafka: true, registry: true, clickhouse: true }, logger)
      return (await startWorker(config, logger)).stop
    },
    'shutting down: finishing the batch in flight',
  )
}
