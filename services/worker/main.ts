import { loadConfig } from '../core/env.ts'
import { createLogger } from '../core/logger.ts'
import { runUntilSignal } from '../core/run-until-signal.ts'
import { checkStartup } from '../core/startup-diagnosis/startup-checks.ts'
import { startWorker } from './worker.ts'

// `npm run start:worker` (started with workerNodeFlags). SIGTERM/SIGINT: finish the batch in flight,
// commit, disconnect, exit 0.
/**
 * The worker's V8 heap: most of it at its peak is garbage and young-generation room, not data held
 * (bench/results/worker.md, "Worker memory"). Node 24 grows the young generation to 2 x 64 MB on a
 * large machine; 2 x 16 MB costs no CPU per conversation there and 60-70 MB less resident memory.
 * (A fixed old-generation growth, --heap-growing-percent, saves ~130 MB more but costs ~15% CPU: not
 * taken.) Only the command line sets the young generation: package.json (start:worker) and compose
 * pass these (worker-node-flags test), and the benches start the worker with them.
 */
export const workerNodeFlags = ['--max-semi-space-size=16']

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
